# A spec for the plan's rendering: two scales, backends in matrix order
# (not declaration order), client sweeps, a fixed-client write stream, a
# scenario with its own sampling, a scenario limited to one backend and a
# backend without a load block.

matrix {
  scales   = ["xs", "s"]
  backends = ["lite", "duck", "preloaded"]
}

sampling {
  warmup = 2
  min_s  = 0.5
  max_s  = 1.5
  reps   = 1
}

scale "xs" {
  users  = 1000
  orders = 25000
}

scale "s" {
  users  = 10000
  orders = 1250000
}

dataset "shop" {
  tx_size = 1000
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
  }
  entity "order" {
    count = scale.orders
    attr "order/user" {
      type = "ref"
      gen  = zipf("user", 1.2)
    }
    attr "order/status" {
      type = "keyword"
      gen  = weighted({ new = 1, paid = 3, shipped = 6 })
    }
    attr "order/total" {
      type = "double"
      gen  = uniform_float(1, 500)
    }
  }
  history "shipping" {
    entity   = "order"
    attr     = "order/status"
    fraction = 0.2
    files    = 3
  }
  mark "before_shipping" {
    after = "initial"
  }
  mark "last_batch" {
    before_last = "shipping"
  }
  truth "by_status" {
    count_by = "order/status"
  }
}

backend "duck" {
  driver = "duckdb"
  path   = "data/shop-${scale.name}.duckdb"
  load {
    tables     = { attrs = "attrs", text = "t", int = "i", real = "r" }
    jobs       = 4
    batch_rows = 250000
  }
}

backend "lite" {
  driver   = "sqlite"
  path     = "data/shop-${scale.name}.sqlite"
  settings = { synchronous = "OFF", journal_mode = "WAL", cache_size = -1000000 }
  after_load = ["ANALYZE", "PRAGMA optimize"]
  load {
    tables = { attrs = "a", text = "t", int = "i", real = "r" }
  }
}

backend "preloaded" {
  driver = "sqlite"
  path   = "data/preloaded.sqlite"
}

query "by_email" {
  params = { email = pick("user", "user/email") }
  sql    = "SELECT e FROM t WHERE v = :email"
}

query "orders_of" {
  params = { u = pick("user") }
  sql    = "SELECT e FROM i WHERE v = :u"
}

query "status" {
  sql = "SELECT v AS status, count(*) AS n FROM t GROUP BY v"
}

query "ship" {
  params = { o = pick("order") }
  sql    = "UPDATE t SET v = 'shipped' WHERE e = :o"
}

scenario "lookup" {
  clients = [1, 8, 64]
  read {
    query = query.by_email
  }
}

scenario "mixed" {
  clients = [4, 16]
  sampling {
    reps  = 3
    max_s = 10
  }
  read {
    mix = [query.by_email, query.orders_of]
  }
  write {
    query = query.ship
  }
}

scenario "status" {
  backends = ["duck"]
  read {
    query   = query.status
    clients = 2
  }
  check "per_status" {
    query      = query.status
    expect_map = { key = "status", value = "n", want = truth.by_status }
    expect_sum = { column = "n", want = scale.orders }
  }
  check "rows" {
    query       = query.status
    expect_rows = 3
  }
}
