include "b" {
  path = "b.hcl"
}

scale "xs" {
  users = 10
}
