# ---------------------------------------------------------------------------
# The transactions' SQL over the datom layout. A step's addition is
# sql/add.sql with STEP replaced by the step's name: it binds :STEP_e (the
# entity), :STEP_a (the attribute) and :STEP_v (the delta). The read of a
# transaction (operation `read`) runs first inside it; its columns are
# read.NAME in the write's abort_if and deltas.
# ---------------------------------------------------------------------------

locals {
  add = file("sql/add.sql")
  read_both = {
    default  = file("sql/read_both.sql")
    postgres = file("postgres/read_both.sql")
  }
}

# pgbench tpcb-like: account += delta, its balance read back, teller and
# branch += delta, a history row.
query "tpcb" {
  sql = join("\n", [
    replace(local.add, "STEP", "account"),
    file("sql/abalance.sql"), ";",
    replace(local.add, "STEP", "teller"),
    replace(local.add, "STEP", "branch"),
    file("sql/history.sql"),
  ])
}

query "balance_of" {
  sql = file("sql/balance_of.sql")
}

query "totals" {
  sql = file("sql/totals.sql")
}

query "conservation" {
  sql = file("sql/conservation.sql")
}

query "by_branch" {
  sql = file("sql/by_branch.sql")
}

# -- SmallBank ---------------------------------------------------------------

query "balance" {
  params = { name = pick("customer", "customer/name") }
  sql    = file("sql/customer.sql")
}

query "customer" {
  sql = file("sql/customer.sql")
}

query "bank_totals" {
  sql = file("sql/bank_totals.sql")
}

query "amalgamate" {
  sql = join("\n", [for s in ["from_savings", "from_checking", "to_checking"] : replace(local.add, "STEP", s)])
}

query "amalgamate_read" {
  sql = { for d, text in local.read_both : d => replace(text, "STEP", "from_savings") }
}

query "deposit_checking" {
  sql = replace(replace(replace(replace(local.add, ":STEP_e", ":e"), ":STEP_a", ":a"), ":STEP_v", ":v"), "STEP", "the update")
}

query "send_payment" {
  sql = join("\n", [for s in ["debit", "credit"] : replace(local.add, "STEP", s)])
}

query "send_payment_read" {
  sql = { for d, text in local.read_both : d => replace(text, "STEP", "debit") }
}

query "transact_savings" {
  sql = replace(local.add, "STEP", "savings")
}

query "transact_savings_read" {
  sql = { for d, text in local.read_both : d => replace(text, "STEP", "savings") }
}

query "write_check" {
  sql = replace(local.add, "STEP", "checking")
}

query "write_check_read" {
  sql = { for d, text in local.read_both : d => replace(text, "STEP", "checking") }
}
