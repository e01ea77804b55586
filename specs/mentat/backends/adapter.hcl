# SQLite through the reference adapter (examples/adapters/sqlite_adapter.py):
# the mentat workload run by a program speaking the adapter protocol
# (docs/adapter-protocol.md), one adapter process per session. It runs
# the same SQL as the embedded "sqlite" backend, on its own file:
#   mentat-spec apply examples/quickstart.hcl -var 'backends=["sqlite_adapter"]'
# A spec that includes this file declares var.data_dir, var.avet and
# local.store as for embedded.hcl.

backend "sqlite_adapter" {
  driver  = "adapter"
  command = ["python3", "${spec_home()}/../examples/adapters/sqlite_adapter.py"]
  dialect = "sqlite" # the queries' SQLite text
  path    = "${var.data_dir}/${local.store}-${scale.name}-adapter.sqlite"
  # Goroutine clients each own an adapter process; "process" workers
  # start their own.
  clients   = can(tonumber(var.client_model)) ? null : try(var.client_model, "goroutine")
  processes = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144 # KiB: 256 MiB of page cache per connection
  }
  setup      = [file("../sql/schema.sql")]
  after_load = concat([file("../sql/post_load.sql")], var.avet ? [file("../sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per flush (one transaction)
  }
}
