# The embedded stores the mentat workload runs on: SQLite and DuckDB, one
# file per scale. file() paths are relative to this file. A spec that
# includes this file declares what differs per run:
#   var.data_dir  the directory the files go to
#   var.avet      whether after_load builds the AVET (value) indexes
#   local.store   the files' name prefix, so specs do not share stores
#                 (<data_dir>/<store>-<scale>.sqlite)
#   var.client_model (optional) goroutine or process: how clients run

backend "sqlite" {
  driver  = "sqlite"
  clients = try(var.client_model, "goroutine")
  path    = "${var.data_dir}/${local.store}-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144 # KiB: 256 MiB of page cache per connection
  }
  setup      = [file("../sql/schema.sql")]
  after_load = concat([file("../sql/post_load.sql")], var.avet ? [file("../sql/avet.sql")] : [])
  analyze    = ["ANALYZE"] # SQLite plans joins from statistics: without them q2 starts from the wrong table
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per transaction
  }
}

backend "duckdb" {
  driver     = "duckdb"
  clients    = try(var.client_model, "goroutine")
  path       = "${var.data_dir}/${local.store}-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup      = [file("../sql/schema.sql")]
  after_load = concat([file("../duckdb/post_load.sql")], var.avet ? [file("../duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}
