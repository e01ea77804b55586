# A dataset whose expressions evaluate but whose model the generator
# rejects: every error points at the block or attribute at fault.

scale "xs" {
  users  = 10
  issues = 100
  labels = 5
}

scale "s" {
  users  = 20
  issues = 200
  labels = 10
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
  entity "label" {
    count = scale.labels
    attr "label/name" {
      type   = "string"
      unique = true
      gen    = seq("label-%d")
    }
  }
  entity "issue" {
    count = scale.issues
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("usr", 1.1) # ERROR: Invalid dataset
    }
    attr "issue/labels" {
      type = "ref"
      many = true
      gen  = sample("label", 0, 3)
    }
    attr "issue/state" {
      type = "keyword"
      gen  = weighted({ open = 1, closed = 1 })
    }
  }
  history "relabel" {
    entity = "issue"
    attr   = "issue/labels" # ERROR: Invalid dataset
  fraction = 0.1
  }
  history "close" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.5
  }
  mark "m" {
    after = "reopen" # ERROR: Invalid dataset
  }
  truth "users" {
    sample = "user"
    n      = 5
    attrs  = ["user/email", "user/name"] # ERROR: Invalid dataset
  }
  truth "by_state" {
    count_by = "issue/status" # ERROR: Invalid dataset
  }
}
