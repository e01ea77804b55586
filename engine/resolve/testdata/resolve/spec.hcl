# Per-cell resolution: datasets per scale, backends, queries and checks
# per (scale, backend).

variable "data_dir" {
  default = "data"
}

scale "xs" {
  users  = 10
  issues = 100
  batch  = 1000
}

scale "s" {
  users  = 40
  issues = 400
  batch  = 4000
}

dataset "d" {
  seed    = 7
  tx_size = scale.users * 5

  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
  }
  entity "issue" {
    count = scale.issues
    attr "issue/state" {
      type  = "keyword"
      index = true
      gen   = weighted({ open = 3, closed = 1 })
    }
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("user", 1.5)
    }
  }
  history "close" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.25
    files    = 2
  }
  mark "t0" {
    after = "initial"
  }
  truth "by_state" {
    count_by = "issue/state"
  }
  truth "open" {
    count = "issue"
    where {
      attr  = "issue/state"
      op    = "!="
      value = "closed"
    }
  }
}

backend "lite" {
  driver   = "sqlite"
  path     = "${var.data_dir}/${backend.name}-${scale.name}.sqlite"
  settings = { journal_mode = "WAL", cache_size = -2000, foreign_keys = true }
  setup    = ["CREATE TABLE a (x)", "CREATE TABLE b (y)"]
  analyze  = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "t", int = "i", real = "r" }
    jobs       = 3
    batch_rows = scale.batch
  }
}

backend "duck" {
  driver = "duckdb"
}

query "q" {
  params = { email = pick("user", "user/email"), t = mark("t0"), limit = 5, ids = [1, 2] }
  sql = {
    default = "SELECT 'default' WHERE :email = :email AND :t > 0 LIMIT :limit"
    duckdb  = "SELECT 'duckdb' WHERE :email = :email AND :t > 0 LIMIT :limit"
  }
}

query "plain" {
  sql = "SELECT state, n FROM counts WHERE x = :x"
}

query "postgres_only" {
  sql = { postgres = "SELECT 1" }
}

scenario "s" {
  backends = ["lite"]
  read {
    query = query.q
  }
  check "list" {
    query       = query.plain
    for_each    = truth.users
    params      = { x = each.value.email, i = each.key }
    expect_rows = each.key + 1
  }
  check "object" {
    query    = query.plain
    for_each = truth.by_state
    params   = { x = each.key }
    expect_values = { state = each.key, n = each.value }
  }
  check "all" {
    query         = query.plain
    params        = { x = "all" }
    expect_rows   = truth.open
    expect_values = { backend = backend.name }
    expect_set = {
      columns = ["state", "n"]
      rows    = [for k, v in truth.by_state : [k, v]]
    }
    expect_map = { key = "state", value = "n", want = truth.by_state }
    expect_sum = { column = "n", want = scale.issues }
  }
}

# Checks whose for_each cannot expand; only CheckBlock.Resolve reads them.
scenario "bad" {
  backends = ["duck"]
  check "empty" {
    query       = query.plain
    for_each    = []
    expect_rows = 1
  }
  check "scalar" {
    query       = query.plain
    for_each    = "users"
    expect_rows = 1
  }
  check "null" {
    query       = query.plain
    for_each    = null
    expect_rows = 1
  }
  check "set_width" {
    query = query.plain
    expect_set = {
      columns = ["a", "b"]
      rows    = [["x"]]
    }
  }
  check "extra_field" {
    query      = query.plain
    expect_sum = { column = "n", want = 1, total = 2 }
  }
}
