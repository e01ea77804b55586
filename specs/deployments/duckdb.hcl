# The seed suite's duckdb deployment: mentat as a DuckDB extension
# (mentat.duckdb_extension, the seed suite's DUCKDB_EXT, unsigned as built
# locally) loaded into every database instance and connection, loaded
# through edn_t, asked through edn_q (answers in EDN), plans through
# mentat_explain. The workload and its checks are specs/mentat's.
#
#   mentat-spec apply specs/deployments/duckdb.hcl -var duckdb_ext=/path/to/mentat.duckdb_extension
#
# Without the file the run stops before anything is loaded, exit 7.

variable "duckdb_ext" {
  type        = string
  default     = "crates/duckdb/build/release/mentat.duckdb_extension" # where the seed suite's make release puts it
  description = "The mentat DuckDB extension (the seed suite's DUCKDB_EXT): a path, loaded into every database and connection."
}

locals {
  answer = "edn" # edn_q answers one EDN value
}

matrix {
  scales    = var.scales
  backends  = ["duckdb-ext"]
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

backend "duckdb-ext" {
  driver                    = "duckdb"
  clients                   = local.client_kind # reader processes open the file read-only; DuckDB has one writing process
  processes                 = local.client_processes
  path                      = "${var.data_dir}/deploy-duckdb-${scale.name}.duckdb"
  extensions                = [var.duckdb_ext]
  allow_unsigned_extensions = true # a locally built extension is not signed
  explain                   = "SELECT mentat_explain(:q)"
  load {
    statement    = "SELECT edn_t(:tx)"
    format       = "edn"
    batch_datoms = var.batch_datoms
    ids          = var.ids
    jobs         = var.load_jobs
  }
}
