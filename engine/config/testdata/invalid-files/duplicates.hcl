# Names must be unique within their kind.

variable "v" {
  default = 1
}

variable "v" { # ERROR: Duplicate variable "v"
  default = 2
}

locals {
  a = 1
}

locals {
  a = 2 # ERROR: Duplicate local "a"
}

sampling {
  reps = 1
}

sampling { # ERROR: Duplicate sampling block
  reps = 2
}

matrix {
}

matrix { # ERROR: Duplicate matrix block
}

scale "xs" {
  users = 10
}

scale "xs" { # ERROR: Duplicate scale "xs"
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
    attr "user/email" { # ERROR: Duplicate attr "user/email"
      type = "string"
      gen  = seq("v%d@example.com")
    }
  }
  truth "t" {
    count = "user"
  }
  truth "t" { # ERROR: Duplicate truth "t"
    count = "user"
  }
}

backend "sqlite" {
  driver = "sqlite"
  load {
    tables = { attrs = "attrs", text = "t", int = "i", real = "r" }
  }
  load { # ERROR: Duplicate load block
    tables = { attrs = "attrs", text = "t", int = "i", real = "r" }
  }
}

query "q1" {
  sql = "SELECT 1"
}

query "q1" { # ERROR: Duplicate query "q1"
  sql = "SELECT 2"
}

scenario "s" {
  sampling {
    reps = 1
  }
  sampling { # ERROR: Duplicate sampling block
    reps = 2
  }
  read {
    query = query.q1
  }
  check "c" {
    query       = query.q1
    expect_rows = 1
  }
  check "c" { # ERROR: Duplicate check "c"
    query       = query.q1
    expect_rows = 1
  }
}
