# The embedded stores the mentat workload runs on: SQLite and DuckDB, one
# file per scale. file() paths are relative to this file. A spec that
# includes this file declares what differs per run:
#   var.data_dir  the directory the files go to
#   var.avet      whether after_load builds the AVET (value) indexes
#   local.store   the files' name prefix, so specs do not share stores
#                 (<data_dir>/<store>-<scale>.sqlite)
#   var.client_model (optional) how clients run: "goroutine", "process"
#                 (one worker process per client) or a number N (N worker
#                 processes sharing the clients, as pgbench -j N)

backend "sqlite" {
  driver = "sqlite"
  # A number N becomes processes = N; a null attribute counts as not set.
  clients   = can(tonumber(var.client_model)) ? null : try(var.client_model, "goroutine")
  processes = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
  path      = "${var.data_dir}/${local.store}-${scale.name}.sqlite"
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
  clients    = can(tonumber(var.client_model)) ? null : try(var.client_model, "goroutine")
  processes  = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
  path       = "${var.data_dir}/${local.store}-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup      = [file("../sql/schema.sql")]
  after_load = concat([file("../duckdb/post_load.sql")], var.avet ? [file("../duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}
