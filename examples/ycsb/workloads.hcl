# ---------------------------------------------------------------------------
# YCSB's core workloads A to F as operation mixes: each call of a client
# draws one operation by its weight (readproportion, updateproportion,
# ...) from the client's seeded stream. timings.csv has a row per
# operation (op = read, update, insert, scan, read_modify_write) and the
# total. They run in order on one store per scale and backend; every
# check compares with the truth after every write committed so far.
# ---------------------------------------------------------------------------

scenario "workload_a" {
  description = "A, update heavy: 50% read, 50% update, zipfian"
  clients     = var.threads
  read {
    writers = var.writers
    operation "read" {
      weight = 50
      query  = query.read
    }
    operation "update" {
      weight    = 50
      write     = "update"
      query     = query.update
      max_tries = var.max_tries
    }
  }
  check "read" {
    query    = query.read
    for_each = truth.sample_records
    params   = { key = each.value["ycsb/key"] }
    expect_set = {
      columns = ["field", "value"]
      rows    = [for f in concat(["ycsb/key"], local.fields) : [f, each.value[f]]]
    }
  }
  check "records" {
    query         = query.count
    expect_values = { records = truth.records, fields = 10 * truth.records }
  }
}

scenario "workload_b" {
  description = "B, read mostly: 95% read, 5% update, zipfian"
  clients     = var.threads
  read {
    writers = var.writers
    operation "read" {
      weight = 95
      query  = query.read
    }
    operation "update" {
      weight    = 5
      write     = "update"
      query     = query.update
      max_tries = var.max_tries
    }
  }
  check "read" {
    query    = query.read
    for_each = truth.sample_records
    params   = { key = each.value["ycsb/key"] }
    expect_set = {
      columns = ["field", "value"]
      rows    = [for f in concat(["ycsb/key"], local.fields) : [f, each.value[f]]]
    }
  }
}

scenario "workload_c" {
  description = "C, read only: 100% read, zipfian"
  clients     = var.threads
  read {
    operation "read" {
      weight = 100
      query  = query.read
    }
  }
  check "read" {
    query    = query.read
    for_each = truth.sample_records
    params   = { key = each.value["ycsb/key"] }
    expect_set = {
      columns = ["field", "value"]
      rows    = [for f in concat(["ycsb/key"], local.fields) : [f, each.value[f]]]
    }
  }
}

scenario "workload_d" {
  description = "D, read latest: 95% read, 5% insert, latest"
  clients     = var.threads
  read {
    writers = var.writers
    operation "read" {
      weight = 95
      query  = query.read_latest
    }
    operation "insert" {
      weight    = 5
      write     = "insert"
      query     = query.insert
      max_tries = var.max_tries
    }
  }
  check "records" {
    query         = query.count
    expect_values = { records = truth.records, fields = 10 * truth.records }
  }
}

scenario "workload_e" {
  description = "E, short ranges: 95% scan of 1 to 100 records, 5% insert, zipfian"
  clients     = var.threads
  sampling {
    min_n = var.scan_calls # a scan reads up to 1,100 rows
  }
  read {
    writers = var.writers
    operation "scan" {
      weight = 95
      query  = query.scan
    }
    operation "insert" {
      weight    = 5
      write     = "insert"
      query     = query.insert
      max_tries = var.max_tries
    }
  }
  check "records" {
    query         = query.count
    expect_values = { records = truth.records, fields = 10 * truth.records }
  }
  # A scan returns its records in key order: from a sample record's key,
  # the next ten records by number (inserted ones included).
  check "scan" {
    query    = query.scan_keys
    for_each = truth.sample_records
    params   = { start = each.value["ycsb/key"], n = 10 }
    expect_list = {
      columns = ["key"]
      rows    = [for j in range(min(10, truth.records - each.value.id)) : [format("user%010d", each.value.id + j)]]
    }
  }
}

scenario "workload_f" {
  description = "F, read-modify-write: 50% read, 50% read-modify-write, zipfian"
  clients     = var.threads
  read {
    writers = var.writers
    operation "read" {
      weight = 50
      query  = query.read
    }
    operation "read_modify_write" {
      weight    = 50
      read      = query.read_e
      write     = "update"
      query     = query.update
      max_tries = var.max_tries
    }
  }
  check "read" {
    query    = query.read
    for_each = truth.sample_records
    params   = { key = each.value["ycsb/key"] }
    expect_set = {
      columns = ["field", "value"]
      rows    = [for f in concat(["ycsb/key"], local.fields) : [f, each.value[f]]]
    }
  }
  check "records" {
    query         = query.count
    expect_values = { records = truth.records, fields = 10 * truth.records }
  }
}
