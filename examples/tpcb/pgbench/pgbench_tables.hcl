# examples/tpcb on pgbench's own tables: the dataset loaded through a
# statement (pgbench_load, JSON tx-data) into pgbench_accounts, _tellers,
# _branches (and an empty _history) as `pgbench -i` creates them, and
# tpcb_like running pgbench's tpcb-like SQL on them, with the same checks
# (pgbench_override.hcl swaps their queries). With the base spec:
#
#   mentat-spec apply examples/tpcb examples/tpcb/pgbench
#
# At accounts_per_branch = 100000 the tables are pgbench -i -s 1's, so
# `pgbench -b tpcb-like` runs on them as on its own (scripts/bench-native.sh).

variable "pgbench_database" {
  type        = string
  default     = "mentat_tpcb_pgbench"
  description = "PostgreSQL database of the pgbench tables (the scale is appended); created by the run, never dropped unless it created it."
}

variable "protocol" {
  type        = string
  default     = "extended"
  description = "The engine's PostgreSQL protocol: extended or simple."
}

variable "min_s" {
  type        = number
  default     = 0.5
  description = "At least this many seconds per point (and at least var.calls transactions)."
}

backend "pgbench_tables" {
  driver   = "postgres"
  dsn      = var.pg_dsn
  database = "${var.pgbench_database}_${scale.name}"
  protocol = var.protocol
  setup    = [file("schema.sql"), file("load.sql")]
  analyze  = ["ANALYZE"]
  load {
    statement = "SELECT pgbench_load(CAST(:tx AS jsonb))"
    format    = "json"
  }
}
