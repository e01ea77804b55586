# The engine-vs-native benchmark spec (scripts/bench-native.sh): the
# quickstart's scales, dataset and q1, read from the same files
# (specs/mentat), measured as point_lookup at 1 and 2 clients; and, with
# -var 'scenarios=["write_state"]', write_mixed's transaction as a write
# operation (so that several clients may write). Its stores are
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

variable "scenarios" {
  type    = list(string)
  default = ["point_lookup"]
}

variable "min_s" {
  type    = number
  default = 10
}

locals {
  sql   = "../../../specs/mentat"
  store = "bench" # <data_dir>/bench-<scale>.sqlite and .duckdb
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios
}

sampling {
  warmup  = 100
  min_s   = var.min_s
  min_n   = 30
  max_s   = var.min_s * 2
  reps    = 1
  probe_s = 20
}

# The quickstart's scales, dataset and queries: the shared workload's files
# themselves, so the figures are the quickstart's data and q1.
include "scales" {
  path = "../../../specs/mentat/scales.hcl"
}

include "dataset" {
  path = "../../../specs/mentat/dataset.hcl"
}

include "queries" {
  path = "../../../specs/mentat/queries.hcl"
}

include "embedded" {
  path = "../../../specs/mentat/backends/embedded.hcl"
}

# The quickstart's backends, the adapter's too (TestBenchSpecMatchesQuickstart).
include "adapter" {
  path = "../../../specs/mentat/backends/adapter.hcl"
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

query "write_state" {
  sql = file("${local.sql}/sql/write_state.sql") # :e :a :v :tx are the write's
}

# write_mixed's writer alone (the dataset's write "state_change": one
# issue's state per transaction, specs/mentat/sql/write_state.sql), every
# call one transaction with no retry, as one pgbench transaction is.
scenario "write_state" {
  description = "write_mixed's transaction: an issue's state, zipfian, per call"
  clients     = var.clients
  read {
    operation "state_change" {
      weight    = 1
      write     = "state_change"
      query     = query.write_state
      max_tries = 1
    }
  }
}
