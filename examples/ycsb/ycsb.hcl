# YCSB's core workloads A to F (the Yahoo! Cloud Serving Benchmark), in
# HCL and SQL alone, over the mentat datom layout: a usertable of records
# with a key and ten 100-byte fields, read, updated, inserted and scanned
# by weighted operation mixes. README.md maps each YCSB property to this
# spec.
#
#   mentat-spec plan  examples/ycsb          # what would run
#   mentat-spec apply examples/ycsb          # SQLite at xs (10,000 records)
#   mentat-spec apply examples/ycsb -var 'backends=["sqlite","duckdb","postgres"]'

variable "scales" {
  type        = list(string)
  default     = ["xs"]
  description = "Scales to run, in order: xs (10,000 records), s (100,000), m (1M), l (10M), xl (30M)."
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s", "m", "l", "xl"], s)])
    error_message = "Scales are xs, s, m, l and xl."
  }
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite"]
  description = "Backends to run: sqlite (embedded, no server), duckdb (embedded), postgres (needs pg_dsn)."
}

variable "scenarios" {
  type        = list(string)
  default     = null
  description = "Workloads to run, e.g. -var 'scenarios=[\"workload_a\"]'; null (the default) runs A to F in order."
}

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true
  description = "PostgreSQL server to create the benchmark databases in (scripts/pg.sh up prints one)."
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

variable "threads" {
  type        = list(number)
  default     = [4]
  description = "YCSB's threadcount: client counts, one point each."
}

variable "writers" {
  type        = number
  default     = null
  description = "How many clients may write at once (null: every client on its own session where the database allows it; SQLite and DuckDB take one writing session)."
}

variable "requestdistribution" {
  type        = string
  default     = "zipfian"
  description = "YCSB's requestdistribution of the reads', scans' and updates' records: zipfian or uniform."
  validation {
    condition     = contains(["zipfian", "uniform"], var.requestdistribution)
    error_message = "requestdistribution is zipfian or uniform."
  }
}

variable "max_tries" {
  type        = number
  default     = 5
  description = "Tries of a write failing on contention (busy, serialization, deadlock, conflict)."
}

variable "calls" {
  type        = number
  default     = 10000
  description = "At least this many calls per point (YCSB's operationcount), so that each operation's share is known within half a point."
}

variable "scan_calls" {
  type        = number
  default     = 2000
  description = "Workload E's calls per point: a scan reads up to 100 records."
}

variable "reps" {
  type        = number
  default     = 1
  description = "Repetitions of each point; compare needs at least 3 to decide."
}

locals {
  store = "ycsb"
  sql   = "../../specs/mentat"
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios
}

sampling {
  warmup  = 10
  min_s   = 1
  min_n   = var.calls
  max_s   = 60
  reps    = var.reps
  probe_s = 20
}

# SQLite and DuckDB: the datom tables of the mentat workload, its current
# state built after the load, and one value index (records by key).
backend "sqlite" {
  driver     = "sqlite"
  path       = "${var.data_dir}/${local.store}-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL", cache_size = -262144 }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql"), file("sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000
  }
}

backend "duckdb" {
  driver     = "duckdb"
  path       = "${var.data_dir}/${local.store}-${scale.name}.duckdb"
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = [file("${local.sql}/duckdb/post_load.sql"), file("duckdb/avet.sql")]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880
  }
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_ycsb_${scale.name}" # created by the run; never dropped unless it created it
  protocol   = "extended"
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql"), file("sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = 2
    batch_rows = 1000000
  }
}
