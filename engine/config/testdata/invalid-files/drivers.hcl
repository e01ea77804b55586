# Drivers and their options are checked against the registry.

scale "xs" {
  users = 10
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
  path    = "data/x.sqlite"
  journal = "WAL" # ERROR: Unsupported argument
}

backend "oracle" {
  driver = "oracle" # ERROR: Unknown driver
  sid    = "ORCL"
}

backend "pg" {
  driver   = "postgres"
  dsn      = "postgres://localhost/x"
  database = "bench"
  dbname   = "bench" # ERROR: Unsupported argument
}
