# A small bank workload, valid as it stands: the validation tests change
# one thing at a time (validate_names_test.go) and expect one diagnostic.

scale "xs" {
  accounts = 20
}

dataset "bank" {
  seed    = 7
  tx_size = 10
  entity "account" {
    count = scale.accounts
    attr "account/num" {
      type   = "string"
      unique = true
      gen    = seq("ACC-%05d")
    }
    attr "account/balance" {
      type = "long"
      gen  = uniform(0, 1000)
    }
  }
  truth "accounts" {
    count = "account"
  }
  truth "sample" {
    sample = "account"
    n      = 3
    attrs  = ["account/num", "account/balance"]
  }
  truth "total_balance" {
    sum = "account/balance"
  }
  write "deposit" {
    entity = "account"
    attr   = "account/balance"
    target = ref("account")
  }
  write "open" {
    entity = "account"
    insert = true
  }
}

backend "lite" {
  driver = "sqlite"
  path   = "bank-${scale.name}.sqlite"
}

backend "duck" {
  driver = "duckdb"
  path   = "bank-${scale.name}.duckdb"
}

query "balance" {
  sql    = "SELECT v FROM cur_int WHERE e = :account"
  params = { account = pick("account") }
}

query "count" {
  sql = "SELECT count(*) AS n FROM cur_text WHERE a = 1"
}

query "deposit" {
  sql = "UPDATE cur_int SET v = :v, tx = :tx WHERE e = :e AND a = :a AND tx < :tx"
}

query "open_account" {
  sql = <<-SQL
    INSERT INTO cur_text (e, a, v, tx) VALUES (:e, 1, :account_num, :tx);
    INSERT INTO cur_int (e, a, v, tx) VALUES (:e, 2, :account_balance, :tx)
  SQL
}

scenario "bank" {
  clients = [2]
  read {
    operation "balance" {
      weight = 80
      query  = query.balance
    }
    operation "deposit" {
      weight = 15
      write  = "deposit"
      query  = query.deposit
    }
    operation "open" {
      weight = 5
      write  = "open"
      query  = query.open_account
    }
  }
  check "accounts" {
    query         = query.count
    expect_values = { n = truth.accounts }
  }
}

threshold "fast_deposits" {
  scenario = "bank"
  op       = "deposit"
  p99_ms   = 50
}
