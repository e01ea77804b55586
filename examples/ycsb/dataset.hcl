# ---------------------------------------------------------------------------
# YCSB's usertable as datoms: one entity per record, its key and
# fieldcount = 10 fields of fieldlength = 100 random printable bytes
# (random, so that no database compresses them away). Keys are
# "user" + the record number zero-padded to 10 digits, so key order is
# record order (YCSB's insertorder = ordered) and inserted records follow
# the loaded ones.
# ---------------------------------------------------------------------------

scale "xs" {
  records = 10000
}

scale "s" {
  records = 100000
}

scale "m" {
  records = 1000000
}

scale "l" {
  records = 10000000
}

scale "xl" {
  records = 30000000
}

locals {
  fields = [for i in range(10) : "ycsb/field${i}"]
  # YCSB's requestdistribution = zipfian: the scrambled zipfian over the
  # records, constant 0.99, shared by the reads' keys and the updates'
  # records; uniform draws every record alike.
  keys = var.requestdistribution == "uniform" ? ref("user") : scrambled_zipf("user", 0.99)
}

dataset "ycsb" {
  seed    = 7
  tx_size = 1000

  entity "user" {
    count = scale.records
    attr "ycsb/key" {
      type   = "string"
      unique = true
      gen    = seq("user%010d")
    }
    attr "ycsb/field0" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field1" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field2" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field3" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field4" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field5" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field6" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field7" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field8" {
      type = "string"
      gen  = random_bytes(100)
    }
    attr "ycsb/field9" {
      type = "string"
      gen  = random_bytes(100)
    }
  }

  # An update writes one field (writeallfields = false) of a record the
  # request distribution draws; its value is a fresh draw of the field's
  # random bytes.
  write "update" {
    entity = "user"
    attrs  = local.fields
    target = local.keys
  }

  # An insert adds record count + k with its key and every field.
  write "insert" {
    entity = "user"
    insert = true
  }

  truth "records" {
    count = "user"
  }

  truth "sample_records" {
    sample = "user"
    n      = 20
    attrs  = concat(["ycsb/key"], local.fields)
  }
}
