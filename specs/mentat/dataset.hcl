# ---------------------------------------------------------------------------
# The mentat workload's dataset: an issue tracker stored as datoms (entity,
# attribute, value, transaction). Every value is a pure function of (seed,
# attribute, id), so the same seed gives the same data on every machine,
# and the answers the checks compare with (truth) are known without reading
# the database.
# ---------------------------------------------------------------------------

dataset "issues" {
  seed    = 42
  tx_size = 500 # entities per transaction

  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
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
    attr "issue/title" {
      type = "string"
      gen  = seq("Issue %d")
    }
    attr "issue/state" {
      type  = "keyword"
      index = true
      gen   = weighted({ open = 5, closed = 3, in_progress = 2 })
    }
    attr "issue/priority" {
      type = "long"
      gen  = uniform(1, 5)
    }
    attr "issue/estimate" {
      type = "double"
      gen  = uniform_float(0.5, 40) # hours
    }
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("user", 1.1) # a few users get most issues
    }
    attr "issue/labels" {
      type = "ref"
      many = true
      gen  = sample("label", 0, 3)
    }
    attr "issue/created" {
      type = "instant"
      gen  = instant("2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    }
  }

  # After the initial load, 5% of issues change state once, in two files.
  history "state_changes" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.05
    files    = 2
  }

  # Writes after the load (scenario write_mixed): write k sets the state
  # of an issue drawn by target to a value drawn by value, both pure
  # functions of the random seed and k. Hot issues (zipf) are written most.
  write "state_change" {
    entity = "issue"
    attr   = "issue/state"
    value  = weighted({ open = 4, closed = 4, in_progress = 2 })
    target = zipf("issue", 1.1)
  }

  # Transaction ids the history queries refer to.
  mark "t_mid" {
    after = "initial" # the last tx of the initial load
  }
  mark "t_since" {
    before_last = "state_changes" # the last tx before the final history file
  }

  # The answers the checks compare with, computed by the generator.
  truth "by_state" {
    count_by = "issue/state"
  }
  truth "open_high_priority" {
    count = "issue"
    where {
      attr  = "issue/state"
      op    = "="
      value = "open"
    }
    where {
      attr  = "issue/priority"
      op    = ">="
      value = 4
    }
  }
  truth "sample_users" {
    sample = "user"
    n      = 20
    attrs  = ["user/email", "user/name"]
  }
  truth "binding_users" {
    sample = "user"
    n      = 100
    attrs  = ["user/email", "user/name"]
  }
  truth "sample_issues" {
    sample = "issue"
    n      = 20
    attrs  = ["issue/title", "issue/state", "issue/priority", "issue/estimate", "issue/assignee", "issue/labels", "issue/created"]
  }
  truth "assigned" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
  }
  truth "assigned_t_mid" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
    as_of     = "t_mid"
  }
  truth "changed_since" {
    changed = "issue/state"
    since   = "t_since"
  }
}
