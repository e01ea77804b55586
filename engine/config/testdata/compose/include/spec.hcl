# Reads the shared directory, then one of its files again (read once).

matrix {
  backends = ["sqlite"]
}

include "shared" {
  path = "../shared"
}

include "again" {
  path = "../shared/scales.hcl"
}

backend "sqlite" {
  driver = "sqlite"
  setup  = [file("schema.sql")] # next to this file
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

scenario "point" {
  read {
    query = query.q1
  }
}
