# ---------------------------------------------------------------------------
# write_mixed: one writer changing issue states while readers run q1 and
# q2, then the answers after the writes. Read by specs that declare the
# variables mixed_s and mixed_readers and the local mixed_reps (reps):
#   include "writes" { path = "<this directory>" }
# The writes are the dataset's write "state_change" (dataset.hcl): write k
# is a pure function of the random seed and k, so the engine knows the truth
# after the writes that committed without reading the database.
# ---------------------------------------------------------------------------

query "write_state" {
  sql = file("../sql/write_state.sql") # :e :a :v :tx are the write's, not params
}

query "state_now" {
  sql = file("../sql/state_now.sql") # :e is the entity written last
}

scenario "write_mixed" {
  description = "one writer (an issue state per transaction) and readers doing q1/q2 for mixed_s seconds; then the answers after the writes"
  kind        = "write_mixed"
  duration_s  = var.mixed_s
  reps        = local.mixed_reps

  # One writer per store, always (SQLite and DuckDB allow one writing
  # transaction at a time; one writer's commit order makes the truth after
  # the writes knowable). A write failing on contention (SQLITE_BUSY,
  # PostgreSQL 40001/40P01, a DuckDB conflict) is tried up to max_tries
  # times; logs/contention.log counts failures by class and the retries.
  write {
    generator = "state_change"
    query     = query.write_state
    max_tries = 3
  }
  read {
    mix     = [query.q1, query.q2]
    clients = var.mixed_readers
  }
  # A tenth of the readers' calls are followed by a read of the issue
  # written last, checked against the states legal while it ran (before
  # or after each write in flight): check "concurrent_reads" in checks.txt.
  verify {
    query    = query.state_now
    fraction = 0.1
  }

  # After the writes: truth.* is the generator's truth advanced by the
  # writes that committed.
  check "point_lookup" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
  check "aggregate" {
    query      = query.q3
    expect_map = { key = "state", value = "n", want = truth.by_state }
    expect_sum = { column = "n", want = scale.issues }
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
  check "as_of" {
    query    = query.as_of
    for_each = truth.assigned_t_mid
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title", "state"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"], r["issue/state"]]]
    }
  }
  check "input_bindings" {
    query  = query.input_bindings
    params = { emails = [for u in truth.binding_users : u["user/email"]] }
    expect_set = {
      columns = ["email", "name"]
      rows    = [for u in truth.binding_users : [u["user/email"], u["user/name"]]]
    }
  }
}
