# ---------------------------------------------------------------------------
# pgbench's tables as datoms, at pgbench's scale shape: per scale unit 1
# branch, 10 tellers and 100,000 accounts (var.accounts_per_branch), every
# balance 0 as pgbench -i loads them; history starts empty and each
# committed tpcb-like transaction inserts one entity. SmallBank's
# customers each have a savings and a checking balance.
# ---------------------------------------------------------------------------

scale "s1" {
  branches = 1
}

scale "s10" {
  branches = 10
}

scale "s100" {
  branches = 100
}

dataset "bank" {
  seed    = 11
  tx_size = 1000

  entity "branch" {
    count = scale.branches
    attr "branch/bid" {
      type   = "string"
      unique = true
      gen    = seq("b%d")
    }
    attr "branch/balance" {
      type = "long"
      gen  = const(0)
    }
  }

  entity "teller" {
    parent     = "branch"
    per_parent = uniform(10, 10)
    attr "teller/branch" {
      type = "ref"
      gen  = parent()
    }
    attr "teller/balance" {
      type = "long"
      gen  = const(0)
    }
  }

  entity "account" {
    parent     = "branch"
    per_parent = uniform(var.accounts_per_branch, var.accounts_per_branch)
    attr "account/branch" {
      type = "ref"
      gen  = parent()
    }
    attr "account/balance" {
      type = "long"
      gen  = const(0)
    }
  }

  # pgbench_history: one entity per committed tpcb-like transaction. Its
  # attributes are the transaction's own values, which the SQL binds
  # (:account_e, :teller_e, :branch_e, :delta); no truth reads them, the
  # truths count the entities and the checks sum their deltas.
  entity "history" {
    count = 0
    attr "history/account" {
      type = "ref"
      gen  = ref("account")
    }
    attr "history/teller" {
      type = "ref"
      gen  = ref("teller")
    }
    attr "history/branch" {
      type = "ref"
      gen  = ref("branch")
    }
    attr "history/delta" {
      type = "long"
      gen  = const(0)
    }
  }

  entity "customer" {
    count = var.customers * scale.branches
    attr "customer/name" {
      type   = "string"
      unique = true
      gen    = seq("c%08d")
    }
    attr "savings/balance" {
      type = "long"
      gen  = uniform(10000, 50000)
    }
    attr "checking/balance" {
      type = "long"
      gen  = uniform(10000, 50000)
    }
  }

  # -- pgbench tpcb-like ----------------------------------------------------
  # \set aid random(1, 100000 * :scale), bid random(1, 1 * :scale),
  # tid random(1, 10 * :scale), delta random(-5000, 5000); the account,
  # teller and branch updated by the delta, a history row inserted; one
  # transaction, so the truth advances by every step or none.
  write "tpcb" {
    draws = { delta = uniform(-5000, 5000) }
    step "account" {
      entity = "account"
      target = ref("account")
      attr   = "account/balance"
      delta  = draw.delta
    }
    step "teller" {
      entity = "teller"
      target = ref("teller")
      attr   = "teller/balance"
      delta  = draw.delta
    }
    step "branch" {
      entity = "branch"
      target = ref("branch")
      attr   = "branch/balance"
      delta  = draw.delta
    }
    step "history" {
      entity = "history"
      insert = true
    }
  }

  # -- SmallBank --------------------------------------------------------------
  # Amalgamate(a, b): a's savings and checking move to b's checking. The
  # amounts are what the transaction read, so the deltas are the read
  # columns: a ends at 0 and b gains the total, whatever ran before.
  write "amalgamate" {
    step "from_savings" {
      entity = "customer"
      target = ref("customer")
      attr   = "savings/balance"
      delta  = -read.savings
    }
    step "from_checking" {
      entity = "customer"
      via    = "from_savings" # the same customer
      attr   = "checking/balance"
      delta  = -read.checking
    }
    step "to_checking" {
      entity        = "customer"
      target        = ref("customer")
      distinct_from = "from_savings"
      attr          = "checking/balance"
      delta         = read.savings + read.checking
    }
  }

  # DepositChecking(c, amount): checking += amount.
  write "deposit_checking" {
    entity = "customer"
    target = ref("customer")
    attr   = "checking/balance"
    delta  = uniform(1, 500)
  }

  # SendPayment(a, b, amount): aborts when a's checking is short.
  write "send_payment" {
    draws    = { amount = uniform(1, 5000) }
    abort_if = read.checking < draw.amount
    step "debit" {
      entity = "customer"
      target = ref("customer")
      attr   = "checking/balance"
      delta  = -draw.amount
    }
    step "credit" {
      entity        = "customer"
      target        = ref("customer")
      distinct_from = "debit"
      attr          = "checking/balance"
      delta         = draw.amount
    }
  }

  # TransactSavings(c, amount): aborts when savings would go negative.
  write "transact_savings" {
    draws    = { amount = uniform(-5000, 5000) }
    abort_if = read.savings + draw.amount < 0
    step "savings" {
      entity = "customer"
      target = ref("customer")
      attr   = "savings/balance"
      delta  = draw.amount
    }
  }

  # WriteCheck(c, amount): a check larger than both balances costs 1 more.
  write "write_check" {
    draws = { amount = uniform(1, 5000) }
    step "checking" {
      entity = "customer"
      target = ref("customer")
      attr   = "checking/balance"
      delta  = read.savings + read.checking < draw.amount ? -(draw.amount + 1) : -draw.amount
    }
  }

  truth "account_total" {
    sum = "account/balance"
  }
  truth "teller_total" {
    sum = "teller/balance"
  }
  truth "branch_total" {
    sum = "branch/balance"
  }
  truth "accounts_by_branch" {
    sum = "account/balance"
    by  = "account/branch.branch/bid"
  }
  truth "sample_accounts" {
    sample = "account"
    n      = 50
    attrs  = ["account/balance"]
  }
  truth "all_tellers" {
    sample = "teller"
    n      = 10
    attrs  = ["teller/balance"]
  }
  truth "history_rows" {
    count = "history"
  }
  truth "savings_total" {
    sum = "savings/balance"
  }
  truth "checking_total" {
    sum = "checking/balance"
  }
  truth "sample_customers" {
    sample = "customer"
    n      = 50
    attrs  = ["customer/name", "savings/balance", "checking/balance"]
  }
}
