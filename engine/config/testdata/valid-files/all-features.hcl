# Every generator function, every truth kind, every parameter function,
# every check expectation and every scenario setting.

variable "backends" {
  type    = list(string)
  default = ["sqlite", "duckdb"]
}

variable "clients" {
  type    = list(number)
  default = [1, 2]
  validation {
    condition     = length(var.clients) > 0
    error_message = "At least one client count."
  }
}

locals {
  start = "2024-01-01T00:00:00Z"
  tables = {
    attrs = "attrs"
    text  = "log_text"
    int   = "log_int"
    real  = "log_real"
  }
  keys = scrambled_zipf("user")
}

matrix {
  scales    = ["xs", "s"]
  backends  = var.backends
  scenarios = ["lookup", "mixed", "history"]
  dataset   = "tracker"
}

sampling {
  warmup     = 1
  min_s      = 0.5
  min_n      = 5
  max_s      = 1
  reps       = 2
  probe_s    = 5
  check_s    = 10
  load_max_s = 60
}

scale "xs" {
  users  = 20
  labels = 5
  issues = 200
}

scale "s" {
  users  = 200
  labels = 20
  issues = 2000
}

dataset "tracker" {
  seed    = 1
  tx_size = 50

  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
    attr "user/handle" {
      type  = "keyword"
      index = true
      gen   = seq("h%d")
    }
    attr "user/active" {
      type = "boolean"
      gen  = chance(0.8)
    }
    attr "user/joined" {
      type = "instant"
      gen  = instant(local.start, 1767225600000)
    }
    attr "user/team" {
      type = "keyword"
      gen  = const("core")
    }
  }

  entity "label" {
    count = scale.labels
    attr "label/name" {
      type   = "string"
      unique = true
      gen    = seq("label-%d")
    }
  }

  entity "issue" {
    count = scale.issues
    attr "issue/title" {
      type = "string"
      gen  = seq("Issue %d")
    }
    attr "issue/state" {
      type = "keyword"
      gen  = weighted({ open = 5, closed = 3, in_progress = 2 })
    }
    attr "issue/priority" {
      type = "long"
      gen  = uniform(1, 5)
    }
    attr "issue/estimate" {
      type = "double"
      gen  = uniform_float(0.5, 40)
    }
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("user", 1.1)
    }
    attr "issue/reporter" {
      type = "ref"
      gen  = ref("user")
    }
    attr "issue/watcher" {
      type = "ref"
      gen  = local.keys
    }
    attr "issue/editor" {
      type = "ref"
      gen  = latest("user", 0.9)
    }
    attr "issue/owner" {
      type = "ref"
      gen  = hotspot("user", 0.2, 0.8)
    }
    attr "issue/body" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "issue/labels" {
      type = "ref"
      many = true
      gen  = sample("label", 0, 3)
    }
    attr "issue/due" {
      type = "instant"
      gen  = uniform(1704067200000, 1767225600000)
    }
  }

  history "state_changes" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.1
    files    = 2
  }
  history "reassign" {
    entity   = "issue"
    attr     = "issue/assignee"
    fraction = 0.05
  }

  mark "t_initial" {
    after = "initial"
  }
  mark "t_states" {
    after = "state_changes"
  }
  mark "t_since" {
    before_last = "state_changes"
  }

  truth "by_state" {
    count_by = "issue/state"
  }
  truth "open_high" {
    count = "issue"
    where {
      attr  = "issue/state"
      op    = "="
      value = "open"
    }
    where {
      attr  = "issue/priority"
      op    = "ge"
      value = 4
    }
  }
  truth "users" {
    sample = "user"
    n      = 5
    attrs  = ["user/email", "user/handle", "user/active", "user/joined"]
  }
  truth "assigned" {
    sample    = "user"
    n         = 3
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
    as_of     = "t_initial"
  }
  truth "changed" {
    changed = "issue/state"
    since   = "t_since"
  }
}

backend "sqlite" {
  driver      = "sqlite"
  path        = "data/all-${scale.name}.sqlite"
  settings    = { journal_mode = "WAL", cache_size = -65536 }
  setup       = ["CREATE TABLE IF NOT EXISTS t (x INTEGER)"]
  after_load  = ["CREATE INDEX IF NOT EXISTS t_x ON t (x)"]
  analyze     = ["ANALYZE"]
  vacuum      = ["VACUUM"]
  restart     = ["true"]
  drop_caches = ["true"]
  clients     = "threads"
  load {
    tables     = local.tables
    jobs       = 1
    batch_rows = 5000
  }
}

backend "duckdb" {
  driver = "duckdb"
  path   = "data/all-${scale.name}.duckdb"
  load {
    tables = local.tables
    jobs   = 2
  }
}

backend "pg" {
  driver   = "postgres"
  dsn      = env("MENTAT_SPEC_TEST_DSN", "postgres://localhost/postgres")
  database = "mentat_all_${scale.name}"
  protocol = "extended"
}

query "by_email" {
  params = { email = pick("user", "user/email") }
  sql    = "SELECT v AS name FROM log_text WHERE a = 2 AND e = (SELECT e FROM log_text WHERE v = :email)"
}

query "skewed" {
  params = {
    email = pick(local.keys, "user/email")
    e     = pick(latest("issue"))
    h     = pick(hotspot("user", 0.01, 0.5))
    z     = pick(zipf("user", 0.99), "user/email")
    n     = uniform(1, 100)
  }
  sql = "SELECT e FROM log_text WHERE (v = :email OR v = :z OR e IN (:e, :h)) LIMIT :n"
}

query "pull" {
  params = { e = pick("issue") }
  sql    = "SELECT a AS attr, v AS value FROM log_text WHERE e = :e"
}

query "bindings" {
  params = { emails = picks("user", "user/email", 10) }
  sql = {
    default = "SELECT v FROM log_text WHERE v IN (SELECT value FROM json_each(:emails))"
    duckdb  = "SELECT v FROM log_text WHERE v IN (SELECT unnest(CAST(:emails AS VARCHAR[])))"
  }
}

query "as_of" {
  params = { t = mark("t_states"), limit = 10, label = "x", on = true }
  sql    = "SELECT e FROM log_text WHERE tx <= :t AND :label = 'x' AND :on LIMIT :limit"
}

query "states" {
  sql = "SELECT v AS state, count(*) AS n FROM log_text GROUP BY v"
}

query "bump" {
  params = { e = pick("issue") }
  sql    = "UPDATE log_int SET v = v + 1 WHERE e = :e"
}

scenario "lookup" {
  description = "every expectation kind"
  clients     = var.clients
  read {
    query = query.by_email
  }
  check "values" {
    query         = query.by_email
    for_each      = truth.users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/email"] }
  }
  check "assigned" {
    query    = query.by_email
    for_each = truth.assigned
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"]]]
    }
  }
  check "states" {
    query      = query.states
    expect_map = { key = "state", value = "n", want = truth.by_state }
    expect_sum = { column = "n", want = scale.issues }
  }
  check "open_high" {
    query       = query.states
    expect_rows = truth.open_high
  }
}

scenario "mixed" {
  backends = ["sqlite", "duckdb"]
  clients  = [1, 4]
  sampling {
    reps = 1
  }
  read {
    mix = [query.by_email, query.pull, query.bindings]
  }
  write {
    query   = query.bump
    clients = 1
  }
}

scenario "history" {
  read {
    query = query.as_of
  }
  check "changed" {
    query       = query.as_of
    expect_rows = truth.changed
  }
}

threshold "fast_lookups" {
  scenario       = "lookup"
  op             = "read"
  backend        = "sqlite"
  scale          = "xs"
  clients        = 1
  p50_ms         = 1
  p95_ms         = 2
  p99_ms         = 5
  max_ms         = 100
  min_ops_s      = 10
  max_error_rate = 0.01
  max_late_share = 0.05
  abort          = true
}
