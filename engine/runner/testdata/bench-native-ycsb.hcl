# The writes row of scripts/bench-native.sh: YCSB workload A's update
# (examples/ycsb/postgres/update.sql: SELECT ... FOR UPDATE, then three
# statements) alone, one transaction per call, on examples/ycsb's own
# dataset and queries. Its PostgreSQL database is named mentat_bench_*,
# which the script drops afterwards.
#
#   mentat-spec apply engine/runner/testdata/bench-native-ycsb.hcl -var 'clients=[1, 4]'

variable "scales" {
  type    = list(string)
  default = ["xs"]
}

variable "pg_dsn" {
  type      = string
  default   = env("MENTAT_SPEC_PG_DSN")
  sensitive = true
}

variable "pg_database" {
  type        = string
  default     = "mentat_bench_ycsb"
  description = "The PostgreSQL database the run creates (suffixed with the scale)."
  validation {
    condition     = length(regexall("^mentat_bench_[a-z0-9_]+$", var.pg_database)) > 0
    error_message = "The benchmark's databases are named mentat_bench_* (lower case, digits, underscores)."
  }
}

variable "protocol" {
  type    = string
  default = "extended"
}

variable "io" {
  type        = string
  default     = "raw"
  description = "PostgreSQL driver socket I/O: raw (the driver's default on Linux), auto, poller or blocking."
}

variable "clients" {
  type    = list(number)
  default = [1, 4]
}

variable "requestdistribution" {
  type        = string
  default     = "uniform" # as pgbench draws: its zipfian needs an exponent above 1
  description = "The updates' records: uniform or zipfian (examples/ycsb's default)."
}

variable "min_s" {
  type    = number
  default = 5
}

locals {
  sql = "../../../specs/mentat"
}

matrix {
  scales   = var.scales
  backends = ["postgres"]
}

sampling {
  warmup  = 20
  min_s   = var.min_s
  min_n   = 30
  max_s   = var.min_s * 2
  reps    = 1
  probe_s = 20
}

include "dataset" {
  path = "../../../examples/ycsb/dataset.hcl"
}

include "queries" {
  path = "../../../examples/ycsb/queries.hcl"
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "${var.pg_database}_${scale.name}"
  protocol   = var.protocol
  io         = var.io
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql"), file("../../../examples/ycsb/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  vacuum     = ["VACUUM"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = 2
    batch_rows = 1000000
  }
}

# Every call one update: one transaction, no retry, so that a call is one
# pgbench transaction (contention failures, if any, count as errors).
scenario "update" {
  description = "workload A's update alone: one field of a record per transaction"
  clients     = var.clients
  read {
    operation "update" {
      weight    = 1
      write     = "update"
      query     = query.update
      max_tries = 1
    }
  }
}
