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
  driver  = "sqlite"
  journal = "WAL" # ERROR
  mode    = "rw"  # ERROR
  cache   = 1000  # ERROR
}

backend "mysql" {
  driver = "mysql" # ERROR
}
