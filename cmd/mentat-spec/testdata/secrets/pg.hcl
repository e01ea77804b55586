# Read with secrets.hcl (and pg_override.hcl) by TestSensitiveNowherePostgres: the value in the
# DSN and in a GUC of a PostgreSQL backend whose clients are worker
# processes, and read back from the server by a sampler.
variable "pg_dsn" {
  type      = string
  sensitive = true
}

variable "database" {
  type = string
}

matrix {
  backends  = ["postgres"]
  scenarios = ["lookup", "busy"]
}

backend "postgres" {
  driver       = "postgres"
  dsn          = "${var.pg_dsn}&application_name=dsn-${var.tok}"
  database     = var.database
  client_model = "process"
  settings     = { application_name = var.tok }
  setup = [<<-SQL
    CREATE TABLE attrs (a INTEGER PRIMARY KEY, ident TEXT, entity TEXT, value_type TEXT, cardinality TEXT, is_unique BOOLEAN, is_index BOOLEAN);
    CREATE TABLE log_text (e BIGINT, a INTEGER, v TEXT, tx BIGINT, added BOOLEAN);
    CREATE TABLE log_int (e BIGINT, a INTEGER, v BIGINT, tx BIGINT, added BOOLEAN);
    CREATE TABLE log_real (e BIGINT, a INTEGER, v DOUBLE PRECISION, tx BIGINT, added BOOLEAN);
    CREATE TABLE notes (v TEXT);
    INSERT INTO notes VALUES ('${var.tok}'), ('${scale.note}');
  SQL
  ]
  after_load = ["CREATE VIEW noted AS SELECT v, '${local.tagged}' AS t FROM notes"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}


sampler "sessions" {
  kind      = "sql"
  every_s   = 0.2
  scenarios = ["busy"]
  query     = "SELECT application_name, current_setting('application_name') AS mine FROM pg_stat_activity WHERE datname = current_database()"
}
