# The release suite: the seed workload (an issue tracker stored as datoms) at
# every scale on every deployment, measured with the seed's methodology and
# checked against the generator's truth. A run of the whole matrix takes
# hours; pick cells with variables:
#
#   mentat-spec plan  specs/full.hcl
#   mentat-spec apply specs/full.hcl -var 'scales=["s","m"]' -var 'backends=["postgres"]'
#
# examples/quickstart.hcl is the same workload at xs with short sampling,
# annotated for first-time readers.

# ---------------------------------------------------------------------------
# Variables: knobs you set from the command line without editing the file:
#   -var 'scales=["xs","s"]'   or   MENTAT_SPEC_VAR_scales='["s"]'
# ---------------------------------------------------------------------------

variable "scales" {
  type        = list(string)
  default     = ["s"]
  description = "Scales to run, in order (see the scale blocks below)."
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s", "m", "l", "xl"], s)])
    error_message = "Scales are xs, s, m, l and xl."
  }
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite", "duckdb", "postgres"]
  description = "Backends to run: sqlite (embedded, no server), duckdb (embedded), postgres (needs pg_dsn)."
}

variable "avet" {
  type        = bool
  default     = true
  description = "Build the AVET (value) indexes. false reproduces unique-attribute lookups that degrade linearly with scale."
}

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true
  description = "PostgreSQL server to create the benchmark databases in (scripts/pg.sh up prints one)."
}

variable "clients" {
  type        = list(number)
  default     = [1, 8, 32, 64, 128]
  description = "Client counts of the concurrency sweep."
}

variable "min_s" {
  type        = number
  default     = 10
  description = "Each point runs at least this many seconds ..."
}

variable "max_s" {
  type        = number
  default     = 60
  description = "... and at most this many."
}

variable "reps" {
  type        = number
  default     = 3
  description = "Repetitions of each point; timings.csv keeps the median."
}

variable "probe_s" {
  type        = number
  default     = 20
  description = "Per-call ceiling: a first call slower than this makes the scenario a ceiling row."
}

variable "restart" {
  type        = map(list(string))
  default     = { postgres = ["scripts/pg.sh", "restart"] }
  description = "Per backend, the command cold_vs_warm runs to restart the database (embedded stores are simply reopened)."
}

variable "drop_caches" {
  type        = list(string)
  default     = []
  description = "Command that drops the OS page cache before cold calls, e.g. [\"sh\", \"-c\", \"sync && echo 3 > /proc/sys/vm/drop_caches\"] (root)."
}

# --- client models (issue 11) ---
variable "client_model" {
  type        = any # so that both -var client_model=process and -var 'client_model="process"' work
  default     = "goroutine"
  description = "How the sqlite, duckdb and postgres backends run their clients: goroutine (one engine process) or process (one worker process per client)."
  validation {
    condition     = contains(["goroutine", "process"], var.client_model)
    error_message = "client_model is goroutine or process."
  }
}

variable "scenarios" {
  type        = list(string)
  default     = null
  description = "Scenarios to run, in order (default null: every scenario)."
}
# --- end client models ---

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

locals {
  # The datom layout and queries, one directory per SQL dialect where the
  # text differs from the shared default (see specs/mentat/README.md).
  sql = "mentat"
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios # issue 11
}

# How every point is measured: warm-up calls are discarded, then each point
# runs at least min_s seconds and min_n calls, at most max_s seconds; reps
# repetitions, and timings.csv keeps the median. A call longer than probe_s
# is cut: the scenario becomes a "ceiling" row for that scale.
sampling {
  warmup     = 3
  min_s      = var.min_s
  min_n      = 30
  max_s      = var.max_s
  reps       = var.reps
  probe_s    = var.probe_s
  check_s    = 120
  load_max_s = 5400
}

# ---------------------------------------------------------------------------
# Scales: named sizes the dataset reads as scale.<name>.
# ---------------------------------------------------------------------------

scale "xs" {
  users  = 200
  issues = 13000
  labels = 50
}

scale "s" {
  users  = 1600
  issues = 130000
  labels = 200
}

scale "m" {
  users  = 16000
  issues = 1300000
  labels = 500
}

scale "l" {
  users  = 160000
  issues = 13000000
  labels = 1000
}

scale "xl" {
  users  = 500000
  issues = 40000000
  labels = 2000
}

# ---------------------------------------------------------------------------
# The dataset. Every value is a pure function of (seed, attribute, id), so
# the same seed gives the same data on every machine, and the answers the
# checks compare with (truth) are known without reading the database.
# ---------------------------------------------------------------------------

dataset "issues" {
  seed    = 42
  tx_size = 500 # entities per transaction

  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
    }
  }

  entity "label" {
    count = scale.labels
    attr "label/name" {
      type   = "string"
      unique = true
      gen    = seq("label-%d")
    }
  }

  entity "issue" {
    count = scale.issues
    attr "issue/title" {
      type = "string"
      gen  = seq("Issue %d")
    }
    attr "issue/state" {
      type  = "keyword"
      index = true
      gen   = weighted({ open = 5, closed = 3, in_progress = 2 })
    }
    attr "issue/priority" {
      type = "long"
      gen  = uniform(1, 5)
    }
    attr "issue/estimate" {
      type = "double"
      gen  = uniform_float(0.5, 40) # hours
    }
    attr "issue/assignee" {
      type = "ref"
      gen  = zipf("user", 1.1) # a few users get most issues
    }
    attr "issue/labels" {
      type = "ref"
      many = true
      gen  = sample("label", 0, 3)
    }
    attr "issue/created" {
      type = "instant"
      gen  = instant("2024-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    }
  }

  # After the initial load, 5% of issues change state once, in two files.
  history "state_changes" {
    entity   = "issue"
    attr     = "issue/state"
    fraction = 0.05
    files    = 2
  }

  # Transaction ids the history queries refer to.
  mark "t_mid" {
    after = "initial" # the last tx of the initial load
  }
  mark "t_since" {
    before_last = "state_changes" # the last tx before the final history file
  }

  # The answers the checks compare with, computed by the generator.
  truth "by_state" {
    count_by = "issue/state"
  }
  truth "open_high_priority" {
    count = "issue"
    where {
      attr  = "issue/state"
      op    = "="
      value = "open"
    }
    where {
      attr  = "issue/priority"
      op    = ">="
      value = 4
    }
  }
  truth "sample_users" {
    sample = "user"
    n      = 20
    attrs  = ["user/email", "user/name"]
  }
  truth "binding_users" {
    sample = "user"
    n      = 100
    attrs  = ["user/email", "user/name"]
  }
  truth "sample_issues" {
    sample = "issue"
    n      = 20
    attrs  = ["issue/title", "issue/state", "issue/priority", "issue/estimate", "issue/assignee", "issue/labels", "issue/created"]
  }
  truth "assigned" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
  }
  truth "assigned_t_mid" {
    sample    = "user"
    n         = 5
    attrs     = ["user/email"]
    inverse   = "issue/assignee"
    ref_attrs = ["issue/title", "issue/state"]
    as_of     = "t_mid"
  }
  truth "changed_since" {
    changed = "issue/state"
    since   = "t_since"
  }
}

# ---------------------------------------------------------------------------
# Backends: the databases. Attributes the engine does not know (path, dsn,
# database, protocol) belong to the driver.
# ---------------------------------------------------------------------------

backend "sqlite" {
  clients     = var.client_model # issue 11
  restart     = lookup(var.restart, "sqlite", [])
  drop_caches = var.drop_caches
  driver = "sqlite"
  path   = "${var.data_dir}/mentat-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144 # KiB: 256 MiB of page cache per connection
  }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"] # SQLite plans joins from statistics: without them q2 starts from the wrong table
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per transaction
  }
}

backend "duckdb" {
  clients     = var.client_model # issue 11
  restart     = lookup(var.restart, "duckdb", [])
  drop_caches = var.drop_caches
  driver     = "duckdb"
  path       = "${var.data_dir}/mentat-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/duckdb/post_load.sql")], var.avet ? [file("${local.sql}/duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}

backend "postgres" {
  clients     = var.client_model # issue 11
  restart     = lookup(var.restart, "postgres", [])
  drop_caches = var.drop_caches
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_${scale.name}" # created by the run; never dropped unless it created it
  protocol   = "extended"
  settings = {
    work_mem                            = "64MB"
    random_page_cost                    = "1.1"
    max_parallel_workers_per_gather     = "2"
    effective_io_concurrency            = "200"
  }
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  vacuum     = ["VACUUM"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = 2       # parallel COPY streams
    batch_rows = 1000000 # each commit waits for its COPY to end and reach disk: few, large ones
  }
}

# --- the seed's deployments by client model (issue 11): the same stores as
# sqlite and duckdb (same files, so one load serves both), clients in
# worker processes. Select them with -var 'backends=["sqlite-ext"]'.
backend "sqlite-ext" {
  clients     = "process" # one process per client, as the seed's load_extension deployment
  restart     = lookup(var.restart, "sqlite", [])
  drop_caches = var.drop_caches
  driver = "sqlite"
  path   = "${var.data_dir}/mentat-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144 # KiB: 256 MiB of page cache per connection
  }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"] # SQLite plans joins from statistics: without them q2 starts from the wrong table
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per transaction
  }
}

backend "duckdb-readers" {
  clients     = "process" # reader processes; they open the file read-only (one writing process)
  restart     = lookup(var.restart, "duckdb", [])
  drop_caches = var.drop_caches
  driver     = "duckdb"
  path       = "${var.data_dir}/mentat-${scale.name}.duckdb"
  settings   = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/duckdb/post_load.sql")], var.avet ? [file("${local.sql}/duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}
# --- end of the seed's deployments ---

# ---------------------------------------------------------------------------
# Queries: SQL per dialect (default when no override), with :name parameters
# made fresh for every call.
# ---------------------------------------------------------------------------

query "q1" {
  params = { email = pick("user", "user/email") } # a random existing user's email
  sql = {
    default = file("${local.sql}/sql/q1.sql")
    duckdb  = file("${local.sql}/duckdb/q1.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "q2" {
  params = { email = pick("user", "user/email") }
  sql = {
    default = file("${local.sql}/sql/q2.sql")
    duckdb  = file("${local.sql}/duckdb/q2.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "q3" {
  sql = file("${local.sql}/sql/q3.sql")
}

query "q4" {
  sql = {
    default  = file("${local.sql}/sql/q4.sql")
    postgres = file("${local.sql}/postgres/q4.sql") # a join plans better than INTERSECT here
  }
}

query "pull" {
  params = { e = pick("issue") } # a random issue's entity id
  sql    = file("${local.sql}/sql/pull.sql")
}

query "as_of" {
  params = { email = pick("user", "user/email"), t = mark("t_mid") }
  sql = {
    default = file("${local.sql}/sql/as_of.sql")
    duckdb  = file("${local.sql}/duckdb/as_of.sql") # the email lookup in a MATERIALIZED CTE, so DuckDB uses its index on v
  }
}

query "since" {
  params = { t = mark("t_since") }
  sql    = file("${local.sql}/sql/since.sql")
}

query "input_bindings" {
  params = { emails = picks("user", "user/email", 100) } # a JSON array of 100 emails
  sql = {
    default  = file("${local.sql}/sql/input_bindings.sql")
    postgres = file("${local.sql}/postgres/input_bindings.sql")
    duckdb   = file("${local.sql}/duckdb/input_bindings.sql")
  }
}

# ---------------------------------------------------------------------------
# Scenarios: what is measured, and how each answer is checked against the
# generator's truth. A failed check makes apply exit 1.
# ---------------------------------------------------------------------------

scenario "point_lookup" {
  description = "q1: a user by unique email"
  read {
    query = query.q1
  }
  check "names" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
    expect_values = { name = each.value["user/name"] }
  }
}

scenario "ref_traversal" {
  description = "q2: issues assigned to a user (email -> ref -> title, state)"
  read {
    query = query.q2
  }
  check "assigned" {
    query    = query.q2
    for_each = truth.assigned
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title", "state"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"], r["issue/state"]]]
    }
  }
}

scenario "aggregate" {
  description = "q3: issues per state (a full scan of one attribute)"
  read {
    query = query.q3
  }
  check "per_state" {
    query      = query.q3
    expect_map = { key = "state", value = "n", want = truth.by_state }
    expect_sum = { column = "n", want = scale.issues }
  }
}

scenario "predicate_scan" {
  description = "q4: open issues with priority >= 4"
  read {
    query = query.q4
  }
  check "count" {
    query       = query.q4
    expect_rows = truth.open_high_priority
  }
}

scenario "pull" {
  description = "pull [*] of a random issue"
  read {
    query = query.pull
  }
  check "attributes" {
    query    = query.pull
    for_each = truth.sample_issues
    params   = { e = each.value.e }
    expect_set = {
      columns = ["attr", "value"]
      rows = concat(
        [for a in ["issue/title", "issue/state", "issue/priority", "issue/estimate", "issue/assignee", "issue/created"] : [a, each.value[a]]],
        [for l in each.value["issue/labels"] : ["issue/labels", l]],
      )
    }
  }
}

scenario "as_of" {
  description = "q2 as of t_mid: the states before the history phase"
  read {
    query = query.as_of
  }
  check "pre_update_states" {
    query    = query.as_of
    for_each = truth.assigned_t_mid
    params   = { email = each.value["user/email"] }
    expect_set = {
      columns = ["issue", "title", "state"]
      rows    = [for r in each.value.refs : [r.e, r["issue/title"], r["issue/state"]]]
    }
  }
}

scenario "since" {
  description = "issues whose state changed after t_since"
  read {
    query = query.since
  }
  check "changed" {
    query       = query.since
    expect_rows = truth.changed_since
  }
}

scenario "input_bindings" {
  description = "names for 100 emails bound as one input"
  read {
    query = query.input_bindings
  }
  check "names" {
    query  = query.input_bindings
    params = { emails = [for u in truth.binding_users : u["user/email"]] }
    expect_set = {
      columns = ["email", "name"]
      rows    = [for u in truth.binding_users : [u["user/email"], u["user/name"]]]
    }
  }
}

scenario "concurrency_sweep" {
  description = "the read mix (q1, q2, pull in equal parts) at every client count"
  clients     = var.clients
  read {
    mix = [query.q1, query.q2, query.pull]
  }
}

scenario "cold_vs_warm" {
  description = "restart the database and drop the OS page cache, then each query's first call against the next 30"
  kind        = "cold_warm"
  warm_calls  = 30
  read {
    mix = [query.q1, query.pull]
  }
}
