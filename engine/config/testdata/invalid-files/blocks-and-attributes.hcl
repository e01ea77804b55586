# Schema errors: blocks and attributes the loader does not know, and
# literal attributes of the wrong type.

variable "n" {
  type        = number
  default     = 1
  description = ["not", "a", "string"] # ERROR: Incorrect attribute value type
  sensitive   = "maybe"                # ERROR: Incorrect attribute value type
}

resource "aws_instance" "x" { # ERROR: Unsupported block type
}

scale "xs" {
  users = 10
}

dataset "d" {
  seeds = 42 # ERROR: Unsupported argument
  entity "user" {
    count = scale.users
    colour "red" { # ERROR: Unsupported block type
    }
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
      nullable = false # ERROR: Unsupported argument
    }
  }
}

backend "sqlite" {
  driver = ["sqlite"] # ERROR: Incorrect attribute value type
  pool {              # ERROR: Unsupported block type
  }
}

query "q1" {
  sql     = "SELECT 1"
  timeout = 5 # ERROR: Unsupported argument
}

scenario "s" {
  description = { a = 1 } # ERROR: Incorrect attribute value type
  read {
    query = query.q1
  }
  check "nothing" { # ERROR: Check expects nothing
    query = query.q1
  }
}
