# A query that turns stuck inside worker processes: its first calls (the
# probe's and the warm-up's, in the coordinator and the workers) return at
# once, every call after them sleeps far past the ceiling. The workers'
# sessions must be cut at the ceiling and reused, call after call.
variable "data_dir" {
  type    = string
  default = "data"
}

variable "pg_dsn" {
  type      = string
  default   = env("MENTAT_SPEC_PG_DSN")
  sensitive = true
}

variable "database" {
  type = string
}

variable "fast_calls" {
  type        = number
  default     = 20
  description = "Calls that return at once before the query turns stuck."
}

sampling {
  warmup  = 1
  min_s   = 2
  max_s   = 2
  reps    = 1
  probe_s = 0.3
}

scale "xs" {
  users = 20
}

dataset "d" {
  seed = 7
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
  }
}

backend "postgres" {
  driver   = "postgres"
  dsn      = var.pg_dsn
  database = var.database
  clients  = "process"
  setup = [<<-SQL
    CREATE TABLE attrs (a INTEGER PRIMARY KEY, ident TEXT, entity TEXT, value_type TEXT, cardinality TEXT, is_unique BOOLEAN, is_index BOOLEAN);
    CREATE TABLE log_text (e BIGINT, a INTEGER, v TEXT, tx BIGINT, added BOOLEAN);
    CREATE TABLE log_int (e BIGINT, a INTEGER, v BIGINT, tx BIGINT, added BOOLEAN);
    CREATE TABLE log_real (e BIGINT, a INTEGER, v DOUBLE PRECISION, tx BIGINT, added BOOLEAN);
    CREATE SEQUENCE calls;
  SQL
  ]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "turns_stuck" {
  sql = "SELECT pg_sleep(CASE WHEN nextval('calls') > ${var.fast_calls} THEN 30 ELSE 0 END)"
}

scenario "stuck" {
  clients = [2]
  read {
    query = query.turns_stuck
  }
}
