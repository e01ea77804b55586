# A wrong DuckDB q1 that its own check cannot see: every third user's name
# comes back with a suffix, and point_lookup's check here only counts the
# rows. Only the cross-backend comparison with SQLite's answers can tell.
query "q1" {
  sql = {
    default = file("${spec_home()}/mentat/sql/q1.sql")
    duckdb  = file("q1_duckdb.sql")
  }
}

scenario "point_lookup" {
  check "names" {
    query       = query.q1
    for_each    = truth.sample_users
    params      = { email = each.value["user/email"] }
    expect_rows = 1
  }
}
