# Every kind of block the loader overrides by name.
variable "scales" {
  default = ["s"]
}

locals {
  prefix = "over"
}

sampling {
  min_s = 5
  max_s = 9
}

scale "s" {
  users = 50
}

dataset "d" {
  seed = 2
}

query "q1" {
  sql = file("q1.sql") # read next to this file
}

scenario "point" {
  description = "overridden"
}

backend "sqlite" {
  load {
    tables = { attrs = "a", text = "t", int = "i", real = "r" }
  }
}
