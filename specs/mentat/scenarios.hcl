# ---------------------------------------------------------------------------
# The mentat workload's scenarios, in run order: what is measured, and how
# each answer is checked against the generator's truth. A failed check
# makes apply exit 1.
# ---------------------------------------------------------------------------

scenario "point_lookup" {
  description = "q1: a user by unique email"
  read {
    query = query.q1
  }
  check "names" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}

scenario "ref_traversal" {
  description = "q2: issues assigned to a user (email -> ref -> title, state)"
  read {
    query = query.q2
  }
  check "assigned" {
    query    = query.q2
    for_each = truth.assigned
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title", "state"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"], r["issue/state"]]]
    }
  }
}

scenario "aggregate" {
  description = "q3: issues per state (a full scan of one attribute)"
  read {
    query = query.q3
  }
  check "per_state" {
    query      = query.q3
    expect_map = { key = "state", value = "n", want = truth.by_state }
    expect_sum = { column = "n", want = scale.issues }
  }
}

scenario "predicate_scan" {
  description = "q4: open issues with priority >= 4"
  read {
    query = query.q4
  }
  check "count" {
    query       = query.q4
    expect_rows = truth.open_high_priority
    expect_ids  = { column = "issue", want = truth.ids.open_high_priority } # the issues themselves, not only how many
  }
}

scenario "pull" {
  description = "pull [*] of a random issue"
  read {
    query = query.pull
  }
  check "attributes" {
    query    = query.pull
    for_each = truth.sample_issues
    params   = { e = each.value.e }
    expect_set = {
      columns = ["attr", "value"]
      rows = concat(
        [for a in ["issue/title", "issue/state", "issue/priority", "issue/estimate", "issue/assignee", "issue/created"] : [a, each.value[a]]],
        [for l in each.value["issue/labels"] : ["issue/labels", l]],
      )
    }
  }
}

scenario "as_of" {
  description = "q2 as of t_mid: the states before the history phase"
  read {
    query = query.as_of
  }
  check "pre_update_states" {
    query    = query.as_of
    for_each = truth.assigned_t_mid
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title", "state"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"], r["issue/state"]]]
    }
  }
}

scenario "since" {
  description = "issues whose state changed after t_since"
  read {
    query = query.since
  }
  check "changed" {
    query       = query.since
    expect_rows = truth.changed_since
    expect_ids  = { column = "issue", want = truth.ids.changed_since } # distinct ?i: the issues, not e + 1
  }
}

scenario "input_bindings" {
  description = "names for 100 emails bound as one input"
  read {
    query = query.input_bindings
  }
  check "names" {
    query  = query.input_bindings
    params = { emails = [for u in truth.binding_users : u["user/email"]] }
    expect_set = {
      columns = ["email", "name"]
      rows    = [for u in truth.binding_users : [u["user/email"], u["user/name"]]]
    }
  }
}
