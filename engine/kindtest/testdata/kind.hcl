matrix {
  scales   = ["xs"]
  backends = ["sqlite"]
}
sampling {
  warmup  = 1
  min_s   = 0.05
  min_n   = 5
  max_s   = 0.3
  reps    = 2
  probe_s = %g
}
scale "xs" {
  users  = 150
  issues = 1500
  labels = 10
}
include "dataset" {
  path = "%[2]s/dataset.hcl"
}
backend "sqlite" {
  driver     = "sqlite"
  path       = "%[3]s/kind.sqlite"
  setup      = [file("%[2]s/sql/schema.sql")]
  after_load = [file("%[2]s/sql/post_load.sql"), file("%[2]s/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}
query "fast" {
  params = { email = pick("user", "user/email") }
  sql    = file("%[2]s/sql/q1.sql")
}
query "slow" {
  sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) AS n FROM c"
}
query "write_state" {
  sql = file("%[2]s/sql/write_state.sql")
}
query "state_now" {
  sql = file("%[2]s/sql/state_now.sql")
}
scenario %[4]q {
  kind = %[5]q
%[6]s
}
