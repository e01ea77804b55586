# A small spec for reviewing a change: two embedded backends, a query
# with a DuckDB-specific text, and three scenarios. The tests change the
# DuckDB text of "name" and the clients of "total", and check that
# nothing else is reported.
variable "data_dir" {
  type    = string
  default = "data"
}

sampling {
  warmup  = 1
  min_s   = 0.05
  min_n   = 5
  max_s   = 0.2
  reps    = 1
  probe_s = 5
}

scale "xs" {
  users = 40
}

dataset "d" {
  seed = 11
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
    }
  }
  truth "users" {
    sample = "user"
    n      = 3
    attrs  = ["user/email", "user/name"]
  }
}

backend "sqlite" {
  driver     = "sqlite"
  path       = "${var.data_dir}/review-${scale.name}.sqlite"
  setup      = [file("sql/schema.sql")]
  after_load = ["CREATE INDEX log_text_av ON log_text (a, v)"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

backend "duckdb" {
  driver = "duckdb"
  path   = "${var.data_dir}/review-${scale.name}.duckdb"
  setup  = [file("sql/schema.sql")]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "name" {
  params = { email = pick("user", "user/email") }
  sql = {
    default = file("sql/name.sql")
    duckdb  = file("sql/duckdb/name.sql")
  }
}

query "count" {
  sql = file("sql/count.sql")
}

scenario "lookup" {
  read {
    query = query.name
  }
  check "names" {
    query         = query.name
    for_each      = truth.users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}

scenario "total" {
  clients = [1]
  read {
    query = query.count
  }
  check "all" {
    query         = query.count
    expect_values = { n = scale.users }
  }
}

scenario "scan" {
  read {
    query = query.count
  }
}
