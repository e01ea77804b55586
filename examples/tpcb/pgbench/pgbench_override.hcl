# The checks' and the transaction's queries on pgbench's tables instead
# of the datom layout; tpcb_like only (SmallBank has no pgbench tables),
# on backend pgbench_tables (pgbench_tables.hcl).

variable "backends" {
  default = ["pgbench_tables"]
}

variable "scenarios" {
  default = ["tpcb_like"]
}

variable "customers" {
  default = 50 # the least sample_customers takes; no pgbench table, not loaded
}

sampling {
  min_s = var.min_s
}

query "tpcb" {
  sql = file("tpcb.sql")
}

query "balance_of" {
  sql = file("balance_of.sql")
}

query "totals" {
  sql = file("totals.sql")
}

query "by_branch" {
  sql = file("by_branch.sql")
}

query "conservation" {
  sql = file("conservation.sql")
}
