backend "nope" { # ERROR: Missing base block for override
  settings = {}
}

locals {
  nope = 1 # ERROR: Missing base local for override
}

scale "xs" {
  users = 10
  name  = "x" # ERROR: Reserved scale attribute
}

include "x" { # ERROR: Unsupported block type
  path = "y"
}
