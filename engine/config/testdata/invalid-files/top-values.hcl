# Values evaluated once per spec: sampling, scales, scenarios, the matrix.

variable "backends" {
  type    = list(string)
  default = ["sqlite", "oracle"]
}

matrix {
  backends = var.backends # ERROR: Unknown backend
  scales   = ["xs"]
}

sampling {
  warmup  = 3
  min_sec = 1 # ERROR: Unsupported argument
}

scale "xs" {
  users  = 10
  issues = var.nope # ERROR: Unsupported attribute
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
  driver = "sqlite"
}

query "q1" {
  sql = "SELECT 1"
}

scenario "s" {
  backends = ["sqlite", "mysql"] # ERROR: Unknown backend
  clients  = [1, 0]              # ERROR: Invalid clients
  read {
    query = query.q9 # ERROR: Unsupported attribute
  }
  check "c" {
    query       = query.q8 # ERROR: Unsupported attribute
    expect_rows = 1
  }
}

scenario "streams" {
  read {
    query = query.q1
    think = 1 # ERROR: Unsupported argument
  }
  read { # ERROR: Duplicate read block
    query = query.q1
  }
}

scenario "cold" {
  kind = "cold_warm"
  warm_calls = 0 # ERROR: Invalid warm_calls
  read {
    mix = [query.q1]
  }
}

scenario "unknown" {
  kind = "open_sesame" # ERROR: Unknown scenario kind
}

scenario "adaptive" {
  sampling {
    precision_p99 = 0.1 # ERROR: Invalid sampling value
  }
  read {
    query = query.q1
  }
}

scenario "adaptive_pct" {
  sampling {
    precision = 5 # ERROR: Invalid sampling value
  }
  read {
    query = query.q1
  }
}

scenario "reps_order" {
  sampling {
    order = "shuffled" # ERROR: Invalid sampling value
  }
  read {
    query = query.q1
  }
}

scenario "reps_order_type" {
  sampling {
    order = 1 # ERROR: Invalid sampling value
  }
  read {
    query = query.q1
  }
}
