# The quickstart's backends loading through a statement instead of the
# engine's bulk path: each batch of JSON tx-data passed to SQL that writes
# the engine's own tables (a PL/pgSQL function on PostgreSQL, json_each
# INSERTs on SQLite and DuckDB). The after-load SQL and the queries are
# the quickstart's, so every check holds the store so loaded to the truth.
backend "sqlite" {
  load {
    statement    = file("sqlite_load.sql")
    format       = "json"
    batch_datoms = 1000
    ids          = "tempid" # the INTEGER columns take the tempids' digits
  }
}

backend "duckdb" {
  load {
    statement    = file("duckdb_load.sql")
    format       = "json"
    batch_datoms = 1000
  }
}

backend "postgres" {
  setup = [file("${spec_home()}/mentat/postgres/schema.sql"), file("pg_load_tx.sql")]
  load {
    statement    = "SELECT load_tx(CAST(:tx AS jsonb))"
    format       = "json"
    batch_datoms = 1000
    jobs         = 2
  }
}
