# The quickstart's three databases once more, loading through a statement
# (JSON tx-data into the engine's own tables, as load_override.hcl does),
# beside the quickstart's bulk-loaded backends in the same run: the rate
# of a statement load against the bulk path (BENCHMARKS.md). Jobs match
# the bulk backends' (SQLite 1, DuckDB 1, PostgreSQL 2).
#   mentat-spec apply examples/quickstart.hcl engine/runner/testdata/stmtload/bench_backends.hcl \
#     -var 'scales=["s"]' -var 'scenarios=["aggregate"]' \
#     -var 'backends=["sqlite","sqlite_stmt","duckdb","duckdb_stmt","postgres","postgres_stmt"]'

backend "sqlite_stmt" {
  driver     = "sqlite"
  path       = "${var.data_dir}/${local.store}-stmt-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL", cache_size = -262144 }
  setup      = [file("${spec_home()}/mentat/sql/schema.sql")]
  after_load = concat([file("${spec_home()}/mentat/sql/post_load.sql")], var.avet ? [file("${spec_home()}/mentat/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  load {
    statement = file("sqlite_load.sql")
    format    = "json"
  }
}

backend "duckdb_stmt" {
  driver     = "duckdb"
  path       = "${var.data_dir}/${local.store}-stmt-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 }
  setup      = [file("${spec_home()}/mentat/sql/schema.sql")]
  after_load = concat([file("${spec_home()}/mentat/duckdb/post_load.sql")], var.avet ? [file("${spec_home()}/mentat/duckdb/avet.sql")] : [])
  load {
    statement = file("duckdb_load.sql")
    format    = "json"
  }
}

backend "postgres_stmt" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_quickstart_stmt_${scale.name}"
  protocol   = "extended"
  settings   = { work_mem = "64MB" }
  setup      = [file("${spec_home()}/mentat/postgres/schema.sql"), file("pg_load_tx.sql")]
  after_load = concat([file("${spec_home()}/mentat/sql/post_load.sql")], var.avet ? [file("${spec_home()}/mentat/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  vacuum     = ["VACUUM"]
  load {
    statement = "SELECT load_tx(CAST(:tx AS jsonb))"
    format    = "json"
    jobs      = 2
  }
}
