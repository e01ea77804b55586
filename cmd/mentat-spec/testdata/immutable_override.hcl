# Added to specs/full.hcl by BenchmarkClientModels for its "SQLite,
# immutable" rows: the readers of the sqlite backend open the file
# immutable, without SQLite's per-process file locks, so that goroutine
# and process clients read the file the same way.
backend "sqlite" {
  readers = "immutable"
}
