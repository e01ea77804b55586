# TestSensitiveNowhere: one sensitive value (var.tok, set through the
# environment so that worker processes have it too) in every place a
# value can go. No file of the results directory, no log, no console
# line and no process argument may hold it.
variable "data_dir" {
  type    = string
  default = "data"
}

variable "tok" {
  type      = string
  sensitive = true
}

locals {
  tagged = "tag-${var.tok}-end"
  shout  = upper(var.tok) # what a function makes of the value is as secret
}

sampling {
  warmup  = 1
  min_s   = 0.05
  min_n   = 5
  max_s   = 0.2
  reps    = 1
  probe_s = 5
}

scale "xs" {
  users = 20
  note  = "scale-${var.tok}"
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
    n      = 3
    attrs  = ["user/email", "user/name"]
  }
}

backend "sqlite" {
  driver       = "sqlite"
  path         = "${var.data_dir}/secrets-${scale.name}.sqlite"
  client_model = "process"
  setup = [<<-SQL
    CREATE TABLE attrs (a INTEGER PRIMARY KEY, ident TEXT, entity TEXT, value_type TEXT, cardinality TEXT, is_unique BOOLEAN, is_index BOOLEAN);
    CREATE TABLE log_text (e INTEGER, a INTEGER, v TEXT, tx INTEGER, added BOOLEAN);
    CREATE TABLE log_int (e INTEGER, a INTEGER, v INTEGER, tx INTEGER, added BOOLEAN);
    CREATE TABLE log_real (e INTEGER, a INTEGER, v REAL, tx INTEGER, added BOOLEAN);
    CREATE TABLE notes (v TEXT);
    INSERT INTO notes VALUES ('${var.tok}'), ('${scale.note}');
  SQL
  ]
  after_load = ["CREATE VIEW noted AS SELECT v, '${local.tagged}' AS t FROM notes"]
  # Commands read the value from their environment, never from argv.
  restart     = ["sh", "-c", "echo \"restarting $MENTAT_SPEC_VAR_tok\""]
  drop_caches = ["sh", "-c", "echo \"no eviction for $MENTAT_SPEC_VAR_tok\" >&2; exit 3"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "name" {
  params = { email = pick("user", "user/email"), tag = var.tok }
  sql    = <<-SQL
    SELECT n.v AS name, :tag AS tag, '${var.tok}' AS lit
    FROM log_text u JOIN log_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
    WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
  SQL
}


query "notes" {
  sql = "SELECT v FROM notes WHERE v = '${var.tok}'"
}

scenario "lookup" {
  description = "looks up names"
  clients     = [2]
  read {
    mix = [query.name, query.notes]
  }
  check "names" {
    query         = query.name
    for_each      = truth.users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"], tag = var.tok, lit = var.tok }
  }
  check "labelled" {
    query         = query.notes
    for_each      = { (var.tok) = "x" }
    expect_values = { v = "${var.tok}-wrong" }
  }
}

scenario "busy" {
  kind       = "sustained"
  duration_s = 1
  window_s   = 1
  clients    = 1
  read {
    query = query.notes
  }
}

scenario "cold" {
  kind       = "cold_warm"
  warm_calls = 2
  read {
    mix = [query.notes]
  }
}

sampler "sql" {
  kind      = "sql"
  every_s   = 0.2
  scenarios = ["busy"]
  query     = "SELECT v, '${var.tok}' AS again, '${local.shout}' AS shout FROM notes"
}

sampler "broken_sql" {
  kind      = "sql"
  every_s   = 0.2
  scenarios = ["busy"]
  query     = "SELECT nothing FROM missing_${var.tok}"
}

sampler "cmd" {
  kind      = "command"
  every_s   = 0.2
  scenarios = ["busy"]
  command   = ["sh", "-c", "echo \"sampled $MENTAT_SPEC_VAR_tok\""]
}
