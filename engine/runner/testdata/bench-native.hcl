# The engine-vs-native benchmark spec (scripts/bench-native.sh): the
# quickstart's scales, dataset and q1, verbatim (TestBenchSpecMatchesQuickstart
# keeps them so), measured as point_lookup at 1 and 2 clients. Its stores are
# its own: SQLite and DuckDB files under data_dir, and a PostgreSQL database
# named mentat_bench_*, which the script drops afterwards.
#
#   mentat-spec apply engine/runner/testdata/bench-native.hcl -var 'scales=["s"]' \
#     -var 'backends=["postgres"]' -phase load

variable "scales" {
  type    = list(string)
  default = ["s"]
}

variable "backends" {
  type    = list(string)
  default = ["sqlite"]
}

variable "avet" {
  type    = bool
  default = true
}

variable "pg_dsn" {
  type      = string
  default   = env("MENTAT_SPEC_PG_DSN")
  sensitive = true
}

variable "pg_database" {
  type        = string
  default     = "mentat_bench_engine"
  description = "The PostgreSQL database the run creates (suffixed with the scale)."
  validation {
    condition     = length(regexall("^mentat_bench_[a-z0-9_]+$", var.pg_database)) > 0
    error_message = "The benchmark's databases are named mentat_bench_* (lower case, digits, underscores)."
  }
}

variable "protocol" {
  type        = string
  default     = "extended"
  description = "PostgreSQL protocol: extended (server-side prepared, as pgbench -M prepared) or simple (as pgbench -M simple)."
}

variable "io" {
  type        = string
  default     = "raw"
  description = "PostgreSQL driver socket I/O: raw (the driver's default on Linux, as the quickstart), auto, poller or blocking."
}

variable "pg_batch_rows" {
  type        = number
  default     = 1000000
  description = "Rows per PostgreSQL load transaction; 1000000 is what the quickstart uses."
}

variable "data_dir" {
  type    = string
  default = "data/bench"
}

variable "clients" {
  type    = list(number)
  default = [1, 2]
}

variable "min_s" {
  type    = number
  default = 10
}

locals {
  sql = "../../../specs/mentat"
}

matrix {
  scales   = var.scales
  backends = var.backends
}

sampling {
  warmup  = 100
  min_s   = var.min_s
  min_n   = 30
  max_s   = var.min_s * 2
  reps    = 1
  probe_s = 20
}

scale "xs" {
  users  = 200
  issues = 13000
  labels = 50
}

scale "s" {
  users  = 1600
  issues = 130000
  labels = 200
}

scale "m" {
  users  = 16000
  issues = 1300000
  labels = 500
}

scale "l" {
  users  = 160000
  issues = 13000000
  labels = 1000
}

scale "xl" {
  users  = 500000
  issues = 40000000
  labels = 2000
}

dataset "issues" {
  seed    = 42
  tx_size = 500 # entities per transaction

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

  entity "label" {
    count = scale.labels
    attr "label/name" {
      type   = "string"
      unique = true
      gen    = seq("label-%d")
    }
  }

  entity "issue" {
    count = scale.issues
    attr "issue/title" {
      type = "string"
      gen  = seq("Issue %d")
    }
    attr "issue/state" {
      type  = "keyword"
      index = true
      gen   = weighted({ open = 5, closed = 3, in_progress = 2 })
    }
    attr "issue/priority" {
      type = "long"
      gen  = uniform(1, 5)
    }
    attr "issue/estimate" {
      type = "double"
      gen  = uniform_float(0.5, 40) # hours
    }
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("user", 1.1) # a few users get most issues
    }
    attr "issue/labels" {
      type = "ref"
      many = true
      gen  = sample("label", 0, 3)
    }
    attr "issue/created" {
      type = "instant"
      gen  = instant("2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    }
  }

  # After the initial load, 5% of issues change state once, in two files.
  history "state_changes" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.05
    files    = 2
  }

  # Transaction ids the history queries refer to.
  mark "t_mid" {
    after = "initial" # the last tx of the initial load
  }
  mark "t_since" {
    before_last = "state_changes" # the last tx before the final history file
  }

  # The answers the checks compare with, computed by the generator.
  truth "by_state" {
    count_by = "issue/state"
  }
  truth "open_high_priority" {
    count = "issue"
    where {
      attr  = "issue/state"
      op    = "="
      value = "open"
    }
    where {
      attr  = "issue/priority"
      op    = ">="
      value = 4
    }
  }
  truth "sample_users" {
    sample = "user"
    n      = 20
    attrs  = ["user/email", "user/name"]
  }
  truth "binding_users" {
    sample = "user"
    n      = 100
    attrs  = ["user/email", "user/name"]
  }
  truth "sample_issues" {
    sample = "issue"
    n      = 20
    attrs  = ["issue/title", "issue/state", "issue/priority", "issue/estimate", "issue/assignee", "issue/labels", "issue/created"]
  }
  truth "assigned" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
  }
  truth "assigned_t_mid" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
    as_of     = "t_mid"
  }
  truth "changed_since" {
    changed = "issue/state"
    since   = "t_since"
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "${var.data_dir}/bench-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144 # KiB: 256 MiB of page cache per connection
  }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"] # SQLite plans joins from statistics: without them q2 starts from the wrong table
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per transaction
  }
}

backend "duckdb" {
  driver     = "duckdb"
  path       = "${var.data_dir}/bench-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/duckdb/post_load.sql")], var.avet ? [file("${local.sql}/duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "${var.pg_database}_${scale.name}"
  protocol   = var.protocol
  io         = var.io
  settings   = { work_mem = "64MB" }
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  vacuum     = ["VACUUM"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = 2 # parallel COPY streams
    batch_rows = var.pg_batch_rows
  }
}

query "q1" {
  params = { email = pick("user", "user/email") } # a random existing user's email
  sql = {
    default = file("${local.sql}/sql/q1.sql")
    duckdb  = file("${local.sql}/duckdb/q1.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

scenario "point_lookup" {
  description = "q1: a user by unique email"
  clients     = var.clients
  read {
    query = query.q1
  }
  check "names" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}
