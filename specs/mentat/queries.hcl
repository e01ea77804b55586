# ---------------------------------------------------------------------------
# The mentat workload's queries: SQL per dialect (default when no dialect
# text), with :name parameters made fresh for every call. file() paths are
# relative to this file: sql/ holds the default text, postgres/ and duckdb/
# a dialect's own where it differs (see README.md).
# ---------------------------------------------------------------------------

query "q1" {
  params = { email = pick("user", "user/email") } # a random existing user's email
  sql = {
    default = file("sql/q1.sql")
    duckdb  = file("duckdb/q1.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "q2" {
  params = { email = pick("user", "user/email") }
  sql = {
    default = file("sql/q2.sql")
    duckdb  = file("duckdb/q2.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "q3" {
  sql = file("sql/q3.sql")
}

query "q4" {
  sql = {
    default  = file("sql/q4.sql")
    postgres = file("postgres/q4.sql") # a join plans better than INTERSECT here
  }
}

query "pull" {
  params = { e = pick("issue") } # a random issue's entity id
  sql    = file("sql/pull.sql")
}

query "as_of" {
  params = { email = pick("user", "user/email"), t = mark("t_mid") }
  sql = {
    default = file("sql/as_of.sql")
    duckdb  = file("duckdb/as_of.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "since" {
  params = { t = mark("t_since") }
  sql    = file("sql/since.sql")
}

query "input_bindings" {
  params = { emails = picks("user", "user/email", 100) } # a JSON array of 100 emails
  sql = {
    default  = file("sql/input_bindings.sql")
    postgres = file("postgres/input_bindings.sql")
    duckdb   = file("duckdb/input_bindings.sql")
  }
}
