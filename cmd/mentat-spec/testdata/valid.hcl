variable "secret" {
  type      = string
  default   = "x-placeholder"
  sensitive = true
}

scale "xs" {
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
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "data/cmd-test-${scale.name}.sqlite"
}

query "q1" {
  params = { email = pick("user", "user/email") }
  sql    = "SELECT e FROM t WHERE v = :email"
}

scenario "lookup" {
  read {
    query = query.q1
  }
}
