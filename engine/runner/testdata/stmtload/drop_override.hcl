# A load statement that loses one datom (issue 0's issue/state): the
# aggregate check must FAIL on the store so loaded.
backend "sqlite" {
  load {
    statement    = file("sqlite_load_drop.sql")
    format       = "json"
    batch_datoms = 1000
  }
}
