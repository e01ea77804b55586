# The quickstart's SQLite store without the AVET indexes, as a second
# backend of the same run (scripts/aa.sh paired): the A/B in one run, its
# reps alternating with the normal store's point by point.
backend "sqlite_noavet" {
  driver = "sqlite"
  path   = "${var.data_dir}/${local.store}-noavet-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144
  }
  setup      = [file("../../specs/mentat/sql/schema.sql")]
  after_load = [file("../../specs/mentat/sql/post_load.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000
  }
}
