# Locals that depend on each other, and an unknown variable in a local.

locals {
  a = "${local.b}-a" # ERROR: Cycle in locals
  b = "${local.c}-b"
  c = "${local.a}-c"
  d = "${local.a}-d"
  e = var.nope # ERROR: Unsupported attribute
  f = "fine"
}

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
