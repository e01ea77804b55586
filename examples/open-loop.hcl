# Open loop: q1 (a user by unique email) at a fixed arrival rate, whatever
# the latency, as wrk2 and pgbench -R do. Latency is measured from each
# call's intended start, so a stall shows in the percentiles; calls that
# start more than late_ms late are counted as late, calls never started as
# dropped (openloop.csv). The dataset, backends and q1 are the
# quickstart's, cut to what q1 needs:
#
#   mentat-spec apply examples/open-loop.hcl -var rate=500
#   mentat-spec apply examples/open-loop.hcl -var 'rate=[100, 500, 1000]'   # phases
#

variable "rate" {
  type        = any
  default     = 200
  description = "Calls per second of q1, or a list of rates run one after the other."
}

variable "scales" {
  type    = list(string)
  default = ["xs"]
}

variable "backends" {
  type    = list(string)
  default = ["sqlite"]
}

variable "data_dir" {
  type    = string
  default = "data"
}

variable "pg_dsn" {
  type      = string
  default   = env("MENTAT_SPEC_PG_DSN")
  sensitive = true
}

variable "duration_s" {
  type        = number
  default     = 10
  description = "Seconds at each rate."
}

scenario "open_loop_q1" {
  description = "q1 at var.rate calls per second"
  kind        = "open_loop"
  duration_s  = var.duration_s
  late_ms     = 10
  read {
    query   = query.q1
    rate    = var.rate
    clients = 4 # connections serving the arrivals
  }
  check "names" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}

locals {
  sql = "../specs/mentat"
}

matrix {
  scales   = var.scales
  backends = var.backends
}

sampling {
  warmup  = 3
  probe_s = 20
}

scale "xs" {
  users = 200
}

scale "s" {
  users = 1600
}

dataset "users" {
  seed    = 42
  tx_size = 500
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
    }
  }
  truth "sample_users" {
    sample = "user"
    n      = 20
    attrs  = ["user/email", "user/name"]
  }
}

backend "sqlite" {
  driver     = "sqlite"
  path       = "${var.data_dir}/open-loop-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL" }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql"), file("${local.sql}/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_open_loop_${scale.name}"
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql"), file("${local.sql}/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "q1" {
  params = { email = pick("user", "user/email") }
  sql    = file("${local.sql}/sql/q1.sql")
}
