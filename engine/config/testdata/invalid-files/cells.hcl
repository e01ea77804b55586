# Per-cell errors: backends, query texts and parameters, checks.

variable "data_dir" {
  default = "data"
}

scale "xs" {
  users = 10
}

scale "s" {
  users = 20
}

dataset "d" {
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
  truth "names" {
    sample = "user"
    n      = 3
    attrs  = ["user/email", "user/name"]
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "${var.data_dirr}/x.sqlite" # ERROR: Unsupported attribute
  setup  = [file("nope.sql")]          # ERROR: Error in function call
  load {
    tables = { attrs = "attrs", text = "t", int = "i" } # ERROR: Missing load table
  }
}

query "by_email" { # ERROR: Missing query parameter
  sql = "SELECT name FROM users WHERE email = :email"
}

query "as_of" {
  params = { t = mark("t_x") } # ERROR: Invalid query parameter
  sql    = "SELECT count(*) FROM log WHERE tx <= :t"
}

query "who" {
  params = { e = pick("person") } # ERROR: Invalid query parameter
  sql    = "SELECT * FROM log WHERE e = :e"
}

query "by_name" {
  sql = "SELECT email FROM users WHERE name = :name"
}

query "by_both" {
  params = { email = pick("user", "user/email") } # ERROR: Missing query parameter
  sql    = "SELECT 1 FROM users WHERE email = :email AND name = :name"
}

query "file" {
  sql = file("nope.sql") # ERROR: Error in function call
}

scenario "lookup" {
  read {
    query = query.by_email
  }
  write {
    query = query.by_both
  }
  check "names" {
    query       = query.by_name
    for_each    = truth.names
    params      = { email = each.value["user/email"] } # ERROR: Missing query parameter
    expect_rows = 1
  }
  check "no_params" { # ERROR: Missing query parameter
    query       = query.by_name
    expect_rows = 1
  }
}
