# Threshold blocks: every refusal at its line.

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
  }
}

threshold "no_limit" { # ERROR: Threshold without a limit
  scenario = "nope" # ERROR: Unknown scenario
}

threshold "bad" {
  backend        = "nope" # ERROR: Unknown backend
  scale          = "xs"
  p99_ms         = -1 # ERROR: Invalid p99_ms
  max_error_rate = 5 # ERROR: Invalid max_error_rate
  clients        = 0 # ERROR: Invalid clients
  abort          = "soon" # ERROR: Incorrect attribute value type
}

threshold "bad" { # ERROR: Duplicate threshold "bad"
  p50_ms = 1
}

threshold "misspelt_op" {
  op     = "reed" # ERROR: Unknown op
  p99_ms = 5
}

threshold "limit_of_wrong_type" {
  p99_ms = "fast" # ERROR: Incorrect attribute value type
}
