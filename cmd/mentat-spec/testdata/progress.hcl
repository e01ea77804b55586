# The progress test's benchmark: apply.hcl's lookup at 1 and 2 clients,
# each point a little over two seconds, so that -progress-s 1 prints
# interval lines during it.
variable "data_dir" {
  type    = string
  default = "data"
}

variable "name_sql" {
  type        = string
  default     = "n.v"
  description = "The name column of the lookup; a test sets a wrong one."
}

sampling {
  warmup  = 1
  min_s   = 2.2
  min_n   = 5
  max_s   = 2.2
  reps    = 1
  probe_s = 5
}

scale "xs" {
  users = 50
}

dataset "d" {
  seed = 7
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
    }
  }
  truth "users" {
    sample = "user"
    n      = 5
    attrs  = ["user/email", "user/name"]
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "${var.data_dir}/cmd-progress-${scale.name}.sqlite"
  setup = [<<-SQL
    CREATE TABLE attrs (a INTEGER PRIMARY KEY, ident TEXT, entity TEXT, value_type TEXT, cardinality TEXT, is_unique BOOLEAN, is_index BOOLEAN);
    CREATE TABLE log_text (e INTEGER, a INTEGER, v TEXT, tx INTEGER, added BOOLEAN);
    CREATE TABLE log_int (e INTEGER, a INTEGER, v INTEGER, tx INTEGER, added BOOLEAN);
    CREATE TABLE log_real (e INTEGER, a INTEGER, v REAL, tx INTEGER, added BOOLEAN);
  SQL
  ]
  after_load = ["CREATE INDEX log_text_av ON log_text (a, v)"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "name" {
  params = { email = pick("user", "user/email") }
  sql    = <<-SQL
    SELECT ${var.name_sql} AS name
    FROM log_text u JOIN log_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
    WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
  SQL
}

scenario "lookup" {
  clients = [1, 2]
  read {
    query = query.name
  }
  check "names" {
    query         = query.name
    for_each      = truth.users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}
