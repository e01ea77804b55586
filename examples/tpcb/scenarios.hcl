# ---------------------------------------------------------------------------
# tpcb_like runs pgbench's transaction; smallbank the SmallBank mix. Every
# transaction is numbered and its deltas recorded, so the checks compare
# with the truth after exactly the committed ones; the invariants hold
# whatever the interleaving.
# ---------------------------------------------------------------------------

scenario "tpcb_like" {
  description = "pgbench -b tpcb-like: account, teller and branch += delta, a history row"
  clients     = var.clients
  read {
    writers = var.writers
    operation "tpcb" {
      weight    = 1
      write     = "tpcb"
      query     = query.tpcb
      max_tries = var.max_tries
    }
  }
  check "accounts" {
    query         = query.balance_of
    for_each      = truth.sample_accounts
    params        = { e = each.value.e, attr = "account/balance" }
    expect_values = { balance = each.value["account/balance"] }
  }
  check "tellers" {
    query         = query.balance_of
    for_each      = truth.all_tellers
    params        = { e = each.value.e, attr = "teller/balance" }
    expect_values = { balance = each.value["teller/balance"] }
  }
  check "totals" {
    query = query.totals
    expect_values = {
      accounts     = truth.account_total
      tellers      = truth.teller_total
      branches     = truth.branch_total
      history_rows = truth.history_rows
    }
  }
  check "by_branch" {
    query      = query.by_branch
    expect_map = { key = "bid", value = "total", want = truth.accounts_by_branch }
  }
  # Conservation: a query whose answer is the invariant, not the truth,
  # checked after the scenario and every 100 ms while it runs (by default) (each read
  # one statement, one snapshot: a committed transaction is all there).
  check "conservation" {
    query         = query.conservation
    expect_values = { accounts_minus_branches = 0, tellers_minus_branches = 0, history_minus_branches = 0 }
    during_ms     = var.conservation_during_ms
  }
}

scenario "smallbank" {
  description = "SmallBank: amalgamate, balance, deposit_checking, send_payment, transact_savings, write_check"
  clients     = var.clients
  read {
    writers = var.writers
    operation "amalgamate" {
      weight    = 15
      write     = "amalgamate"
      read      = query.amalgamate_read
      query     = query.amalgamate
      max_tries = var.max_tries
    }
    operation "balance" {
      weight = 15
      query  = query.balance
    }
    operation "deposit_checking" {
      weight    = 15
      write     = "deposit_checking"
      query     = query.deposit_checking
      max_tries = var.max_tries
    }
    operation "send_payment" {
      weight    = 25
      write     = "send_payment"
      read      = query.send_payment_read
      query     = query.send_payment
      max_tries = var.max_tries
    }
    operation "transact_savings" {
      weight    = 15
      write     = "transact_savings"
      read      = query.transact_savings_read
      query     = query.transact_savings
      max_tries = var.max_tries
    }
    operation "write_check" {
      weight    = 15
      write     = "write_check"
      read      = query.write_check_read
      query     = query.write_check
      max_tries = var.max_tries
    }
  }
  check "customers" {
    query         = query.customer
    for_each      = truth.sample_customers
    params        = { name = each.value["customer/name"] }
    expect_values = { savings = each.value["savings/balance"], checking = each.value["checking/balance"] }
  }
  # The invariant: all money is the loaded money moved and changed by
  # exactly the committed deltas, an expression of the truth.
  check "totals" {
    query = query.bank_totals
    expect_values = {
      savings  = truth.savings_total
      checking = truth.checking_total
      total    = truth.savings_total + truth.checking_total
    }
  }
}
