# The loads alone (bench-native.sh with BENCH_PARTS=loads): no after-load
# SQL, ANALYZE or VACUUM, which the native loads do not run either; at l
# they take 4 to 12 minutes per backend (loads.csv's post_load_s of a
# full run says how long).
backend "sqlite" {
  after_load = []
  analyze    = []
}

backend "duckdb" {
  after_load = []
}

backend "postgres" {
  after_load = []
  analyze    = []
  vacuum     = []
}
