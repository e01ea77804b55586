# A base spec the override files below change.

variable "scales" {
  type    = list(string)
  default = ["xs"]
}

locals {
  prefix = "base"
}

matrix {
  scales   = var.scales
  backends = ["sqlite"]
}

sampling {
  warmup = 3
  min_s  = 1
  max_s  = 2
}

scale "xs" {
  users = 10
}

scale "s" {
  users = 40
}

dataset "d" {
  seed = 1
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
  }
}

backend "sqlite" {
  driver   = "sqlite"
  path     = "${local.prefix}-${scale.name}.sqlite"
  settings = { journal_mode = "WAL", synchronous = "NORMAL" }
  setup    = [file("schema.sql")]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 100
  }
}

query "q1" {
  params = { email = pick("user", "user/email") }
  sql    = "SELECT 1 WHERE :email IS NOT NULL"
}

scenario "point" {
  description = "base"
  read {
    query = query.q1
  }
}
