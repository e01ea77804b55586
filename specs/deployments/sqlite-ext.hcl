# The seed suite's sqlite-ext deployment: mentat as a SQLite loadable extension
# (libmentat_sqlite.so, the seed suite's SQLITE_EXT) loaded into every session
# the engine opens, loaded through edn_t, asked through edn_q (answers in
# EDN), plans through mentat_explain. The workload and its checks are
# specs/mentat's; common/ changes only how its queries reach the store.
#
#   mentat-spec apply specs/deployments/sqlite-ext.hcl -var sqlite_ext=/path/to/libmentat_sqlite.so
#
# Without the file the run stops before anything is loaded, exit 7.

variable "sqlite_ext" {
  type        = string
  default     = "target/release/libmentat_sqlite.so" # where the seed suite's cargo build puts it
  description = "The mentat SQLite extension (the seed suite's SQLITE_EXT): a path, loaded into every connection."
}

variable "sqlite_ext_entry_point" {
  type        = string
  default     = null
  description = "Its entry point, when not SQLite's default (sqlite3_extension_init, then one named after the file)."
}

locals {
  answer = "edn" # edn_q answers one EDN value
}

matrix {
  scales    = var.scales
  backends  = ["sqlite-ext"]
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

backend "sqlite-ext" {
  driver     = "sqlite"
  clients    = local.client_kind
  processes  = local.client_processes
  path       = "${var.data_dir}/deploy-sqlite-ext-${scale.name}.sqlite"
  extensions = [{ path = var.sqlite_ext, entry_point = var.sqlite_ext_entry_point }] # null: SQLite's default entry point
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
  }
  explain = "SELECT mentat_explain(:q)"
  load {
    statement    = "SELECT edn_t(:tx)"
    format       = "edn"
    batch_datoms = var.batch_datoms
    ids          = var.ids
    jobs         = var.load_jobs
  }
}
