# A bank ledger in HCL and SQL alone, over the mentat datom layout:
# pgbench's built-in tpcb-like transaction (TPC-B in spirit) and a
# SmallBank-style mix, with checks that follow every committed delta
# exactly and invariants that hold whatever the interleaving. README.md
# maps each pgbench and SmallBank step to this spec.
#
#   mentat-spec plan  examples/tpcb
#   mentat-spec apply examples/tpcb          # SQLite, 1 scale unit
#   mentat-spec apply examples/tpcb -var 'backends=["sqlite","duckdb","postgres"]'

variable "scales" {
  type        = list(string)
  default     = ["s1"]
  description = "Scales to run: s1 (pgbench -s 1), s10 (-s 10), s100 (-s 100)."
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite"]
  description = "Backends to run: sqlite, duckdb, postgres (needs pg_dsn)."
}

variable "scenarios" {
  type        = list(string)
  default     = null
  description = "Scenarios to run (null: tpcb_like then smallbank)."
}

variable "accounts_per_branch" {
  type        = number
  default     = 100000
  description = "Accounts per scale unit (pgbench: 100,000). Tests use a small unit."
}

variable "customers" {
  type        = number
  default     = 10000
  description = "SmallBank customers per scale unit, each with a savings and a checking balance."
}

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true
  description = "PostgreSQL server to create the benchmark databases in."
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

variable "clients" {
  type        = list(number)
  default     = [1]
  description = "pgbench -c: client counts, one point each."
}

variable "writers" {
  type        = number
  default     = null
  description = "How many clients may write at once (null: each on its own session where the database allows it)."
}

variable "max_tries" {
  type        = number
  default     = 20
  description = "Tries of a transaction failing on contention (serialization, deadlock, busy, conflict)."
}

variable "conservation_during_ms" {
  type        = number
  default     = 100
  description = "tpcb_like's conservation check also runs every this many ms during the scenario; 0: after it only (scripts/bench-native.sh, whose pgbench runs have no such reader)."
}

variable "calls" {
  type        = number
  default     = 2000
  description = "At least this many transactions per point."
}

locals {
  store = "tpcb"
  sql   = "../../specs/mentat"
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios
}

sampling {
  warmup  = 0 # every transaction is numbered and checked, warm-up ones too
  min_s   = 0.5
  min_n   = var.calls
  max_s   = 120
  reps    = 1
  probe_s = 30
}

backend "sqlite" {
  driver     = "sqlite"
  path       = "${var.data_dir}/${local.store}-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL" }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql")]
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
  after_load = [file("${local.sql}/duckdb/post_load.sql")]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880
  }
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_tpcb_${scale.name}" # created by the run; never dropped unless it created it
  protocol   = "extended"
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = [file("${local.sql}/sql/post_load.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = 2
    batch_rows = 1000000
  }
}
