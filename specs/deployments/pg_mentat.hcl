# The seed suite's pg deployment: pg_mentat, a PostgreSQL extension created in
# the benchmark database, with its GUCs set on every session the engine
# opens (the seed suite's PG_MAX_RESULT_ROWS, PG_TEMP_FILE_LIMIT and
# PG_SLOW_QUERY_MS), loaded through edn_t, asked through edn_q (answers
# one jsonb value), plans through mentat_explain. The workload and its
# checks are specs/mentat's.
#
#   mentat-spec apply specs/deployments/pg_mentat.hcl -var pg_dsn=postgres://...
#
# The server must have pg_mentat installed (cargo pgrx install); without
# it the run stops before anything is loaded, exit 7.

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true
  description = "PostgreSQL server with pg_mentat installed, to create the benchmark databases in."
}

variable "pg_max_result_rows" {
  type        = number
  default     = 0
  description = "mentat.max_result_rows (the seed suite's PG_MAX_RESULT_ROWS): pg_mentat errors past this many result rows (its default 100000); 0, the seed suite's setting, lifts the cap q4 and since pass from scale m up."
}

variable "pg_temp_file_limit" {
  type        = string
  default     = "100GB"
  description = "mentat.temp_file_limit (the seed suite's PG_TEMP_FILE_LIMIT), applied by pg_mentat per query (its default 1GB); q3's sort passes 1GB at xl."
}

variable "pg_slow_query_ms" {
  type        = number
  default     = null
  description = "mentat.slow_query_ms (the seed suite's PG_SLOW_QUERY_MS); null leaves pg_mentat's default."
}

variable "pg_load_jobs" {
  type        = number
  default     = 2
  description = "Parallel edn_t sessions (the seed suite's PG_LOAD_JOBS), each on its own range of transactions."
}

locals {
  answer = "json" # edn_q answers one jsonb value
}

matrix {
  scales    = var.scales
  backends  = ["pg_mentat"]
  scenarios = var.scenarios
}

include "mentat" {
  path = "../mentat"
}

include "writes" {
  path = "../mentat/writes"
}

include "deployment" {
  path = "common"
}

backend "pg_mentat" {
  driver     = "postgres"
  clients    = local.client_kind
  processes  = local.client_processes
  dsn        = var.pg_dsn
  database   = "mentat_deploy_${scale.name}" # created by the run; never dropped unless it created it
  protocol   = "extended"                    # safe: the Datalog is bound, not a literal a protocol could rewrite
  extensions = ["pg_mentat"]
  # The seed suite set these with ALTER DATABASE; a SET on every session is the
  # same for every session the engine opens.
  session_setup = concat(
    ["SET mentat.max_result_rows = ${var.pg_max_result_rows}", "SET mentat.temp_file_limit = '${var.pg_temp_file_limit}'"],
    var.pg_slow_query_ms == null ? [] : ["SET mentat.slow_query_ms = ${var.pg_slow_query_ms}"],
  )
  explain = "SELECT mentat_explain(:q)"
  analyze = ["ANALYZE"] # the seed suite timed ANALYZE and VACUUM after the PG load
  vacuum  = ["VACUUM"]
  load {
    statement    = "SELECT edn_t(:tx)"
    format       = "edn"
    batch_datoms = var.batch_datoms
    ids          = var.ids
    jobs         = var.pg_load_jobs
  }
}
