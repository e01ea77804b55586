# ---------------------------------------------------------------------------
# YCSB's operations in SQL over the datom layout (sql/, with a dialect's
# own text where it differs), and the queries the checks use. A write's
# statements bind the write's parameters (:e, :a, :v, :tx, :k, and for an
# insert one per attribute), not params.
# ---------------------------------------------------------------------------

query "read" {
  params = { key = pick(local.keys, "ycsb/key") } # requestdistribution = zipfian
  sql = {
    default = file("sql/read.sql")
    duckdb  = file("duckdb/read.sql")
  }
}

query "read_latest" {
  params = { key = pick(latest("user", 0.99), "ycsb/key") } # requestdistribution = latest, following the inserts
  sql = {
    default = file("sql/read.sql")
    duckdb  = file("duckdb/read.sql")
  }
}

query "scan" {
  params = {
    start = pick(local.keys, "ycsb/key") # the first key, drawn as a read's
    n     = uniform(1, 100)              # maxscanlength = 100, scanlengthdistribution = uniform
  }
  sql = file("sql/scan.sql")
}

query "update" {
  sql = {
    default  = file("sql/update.sql")
    postgres = file("postgres/update.sql") # the field's row locked first
  }
}

query "insert" {
  sql = file("sql/insert.sql")
}

query "read_e" {
  sql = {
    default = file("sql/read_e.sql")
    duckdb  = file("duckdb/read_e.sql")
  }
}

# For the checks.
query "count" {
  sql = file("sql/count.sql")
}

query "scan_keys" {
  sql = file("sql/scan_keys.sql")
}
