# Errors in expressions that read a sensitive variable must not print it.

variable "pg_dsn" {
  type      = string
  default   = "postgres://bench:hunter2@db/bench"
  sensitive = true
}

variable "data_dir" {
  type    = string
  default = "data-dir-value"
}

locals {
  dsn_copy = "${var.pg_dsn}?sslmode=disable"
}

scale "xs" {
  users = 1
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

backend "pg" {
  driver   = "postgres"
  dsn      = upper(var.pg_dsn, 1)
  database = upper(local.dsn_copy, 2)
}

backend "sqlite" {
  driver = "sqlite"
  path   = upper(var.data_dir, 3)
}
