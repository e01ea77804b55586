# The release suite: the seed suite's workload (an issue tracker stored as datoms) at
# every scale on every deployment, measured with the seed suite's methodology and
# checked against the generator's truth. A run of the whole matrix takes
# hours; pick cells with variables:
#
#   mentat-spec plan  specs/full.hcl
#   mentat-spec apply specs/full.hcl -var 'scales=["s","m"]' -var 'backends=["postgres"]'
#
# The workload (scales, dataset, queries, scenarios) lives in mentat/*.hcl
# and is read by the include block below; examples/quickstart.hcl reads the
# same files at xs with short sampling, annotated for first-time readers.
# This file adds the suite's knobs, its backends and two scenarios of its
# own (concurrency_sweep, cold_vs_warm).

# ---------------------------------------------------------------------------
# Variables: knobs you set from the command line without editing the file:
#   -var 'scales=["xs","s"]'   or   MENTAT_SPEC_VAR_scales='["s"]'
# ---------------------------------------------------------------------------

variable "scales" {
  type        = list(string)
  default     = ["s"]
  description = "Scales to run, in order (see mentat/scales.hcl)."
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s", "m", "l", "xl"], s)])
    error_message = "Scales are xs, s, m, l and xl."
  }
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite", "duckdb", "postgres"]
  description = "Backends to run: sqlite (embedded, no server), duckdb (embedded), postgres (needs pg_dsn); also sqlite-ext, duckdb-readers and sqlite_adapter (SQLite through the reference adapter program)."
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

# Sampling: adaptive by default. A rep runs at least min_s seconds and
# min_n calls, then stops as soon as its p50 is known within precision
# (0.05: +-5% at 95% confidence), and at most max_s seconds, so a slow
# query's rep still gets the seed suite's 10 s of calls. Five reps, interleaved
# across the cell's points, give compare enough to decide (it needs 4 and
# 4). The seed suite's fixed method: -var precision=0 -var min_s=10 -var max_s=60
# -var reps=3 (and -var order=sequential for its order of reps).

variable "min_s" {
  type        = number
  default     = 0.5
  description = "Each point runs at least this many seconds (the seed suite: 10) ..."
}

variable "max_s" {
  type        = number
  default     = 10
  description = "... and at most this many (the seed suite: 60)."
}

variable "precision" {
  type        = number
  default     = 0.05
  description = "A rep stops once its p50 is known within this fraction at 95% confidence; 0 is the seed suite's fixed method (stop at min_s and min_n)."
}

variable "reps" {
  type        = number
  default     = 5
  description = "Repetitions of each point; timings.csv keeps the median (the seed suite: 3; compare needs 4 on each side to decide)."
}

variable "order" {
  type        = string
  default     = "interleaved"
  description = "interleaved: rep 1 of every read point of a cell, then rep 2, ... so reps sample the run's drift; sequential: each point's reps back to back (the seed suite's order)."
}

variable "probe_s" {
  type        = number
  default     = 20
  description = "Per-call ceiling: a first call slower than this makes the scenario a ceiling row."
}

variable "restart" {
  type        = map(list(string))
  default     = {}
  description = "Per backend, a command cold_vs_warm runs to restart the database instead of the driver's own restart (PostgreSQL: pg_ctl restart of the DSN's server when it is local; embedded stores are closed and reopened)."
}

variable "pg_server_restart" {
  type        = string
  default     = "auto"
  description = "auto: cold_vs_warm restarts the PostgreSQL server the DSN points at when it runs on this machine (pg_ctl as the data directory's owner); off: never (the cold rows are then SKIP)."
}

variable "drop_caches" {
  type        = list(string)
  default     = []
  description = "Command that drops the OS page cache before cold calls, e.g. [\"sh\", \"-c\", \"sync && echo 3 > /proc/sys/vm/drop_caches\"] (root); empty: the store's files are evicted (posix_fadvise), checked with mincore."
}

# How clients run: goroutines of this process, one worker
# process per client as the seed suite's sqlite-ext and DuckDB readers did, or
# N worker processes sharing the clients (a number: -var client_model=2).
variable "client_model" {
  type        = any # so that both -var client_model=process and -var 'client_model="process"' work
  default     = "goroutine"
  description = "How clients run: goroutine (one engine process), process (one worker process per client) or a whole number N (N worker processes sharing the clients, as pgbench -j N)."
  validation {
    condition     = can(regex("^(goroutine|process|[1-9][0-9]*)$", tostring(var.client_model)))
    error_message = "client_model is goroutine, process or a whole number of worker processes (at least 1)."
  }
}

variable "scenarios" {
  type        = list(string)
  default     = null
  description = "Scenarios to run, e.g. -var 'scenarios=[\"point_lookup\"]'; null (the default) runs all."
}

# --- sustained ---
variable "sustained_s" {
  type        = number
  default     = 0
  description = "Seconds of the sustained run (the read mix plus writers, samplers alongside); 0 turns it off."
}

variable "sustained_clients" {
  type        = number
  default     = 8
  description = "Readers of the sustained run."
}
# --- end sustained ---

# --- capacity ---
variable "capacity_max_ms" {
  type        = number
  default     = 50
  description = "Service level of the capacity scenario: the read mix's p99 at most this many ms (errors at most 1%, achieved at least 95% of the offered rate, late calls at most 5%). The scenario runs only when selected: -var 'scenarios=[\"capacity\"]'."
  validation {
    condition     = var.capacity_max_ms > 0
    error_message = "capacity_max_ms must be positive."
  }
}

variable "capacity_clients" {
  type        = number
  default     = 8
  description = "Connections serving the capacity search's arrivals: the capacity found is that of this many."
}
# --- end capacity ---

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

# ---- write_mixed --------------------------------------------------------------
variable "mixed_s" {
  type        = number
  default     = 20
  description = "write_mixed: seconds of one writer plus the readers."
}

variable "mixed_readers" {
  type        = number
  default     = 8
  description = "write_mixed: reader clients running q1 and q2 during the writes."
}
# ------------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# The seed suite's remaining knobs (MIN_N, LOAD_MAX_S, CHECK_TIMEOUT_S,
# PG_LOAD_JOBS, EXT_SCENARIO_FILTER), with the seed suite's defaults; the table in
# README.md maps every seed knob to its variable here.
# ---------------------------------------------------------------------------

variable "min_n" {
  type        = number
  default     = 30
  description = "Each point also runs at least this many calls (the seed suite's MIN_N)."
}

variable "load_max_s" {
  type        = number
  default     = 5400
  description = "Per-backend bulk-load cap in seconds (LOAD_MAX_S): past it the load is a ceiling row and the scale's scenarios are skipped."
}

variable "check_s" {
  type        = number
  default     = 120
  description = "Per-call cap of a check in seconds (CHECK_TIMEOUT_S): a slower call makes the check a SKIP."
}

variable "pg_load_jobs" {
  type        = number
  default     = 2
  description = "Parallel COPY streams of the PostgreSQL bulk load (PG_LOAD_JOBS)."
  validation {
    condition     = var.pg_load_jobs >= 1
    error_message = "pg_load_jobs must be at least 1."
  }
}

variable "embedded_skip_scenarios" {
  type        = list(string)
  default     = []
  description = "Scenarios the embedded backends (sqlite, duckdb) skip (EXT_SCENARIO_FILTER)."
}

locals {
  # The SQL the backends below run to build the datom tables, one directory
  # per dialect where the text differs from the shared default (see
  # mentat/README.md).
  sql = "mentat"
  # var.client_model as a backend's two attributes: clients = "goroutine"
  # or "process", or processes = N for a number (null counts as not set).
  client_kind      = can(tonumber(var.client_model)) ? null : var.client_model
  client_processes = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
  # write_mixed runs mixed_s once per cell (as the seed suite did); var.reps
  # here would give compare samples of the writes, at reps times the time.
  mixed_reps = 1
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios
}

# How every point is measured: warm-up calls are discarded, then each point
# runs at least min_s seconds and min_n calls, until its p50 is known within
# precision, at most max_s seconds; reps repetitions, and timings.csv keeps
# the median. A call longer than probe_s is cut: the scenario becomes a
# "ceiling" row for that scale.
sampling {
  warmup     = 3
  min_s      = var.min_s
  min_n      = var.min_n
  max_s      = var.max_s
  precision  = var.precision
  reps       = var.reps
  order      = var.order
  probe_s    = var.probe_s
  check_s    = var.check_s
  load_max_s = var.load_max_s
}

# The shared workload: every .hcl file of mentat/ (see mentat/README.md).
include "mentat" {
  path = "mentat"
}

# write_mixed (specs/mentat/writes): one writer and readers, then the
# answers after the writes. It reads var.mixed_s and var.mixed_readers.
include "writes" {
  path = "mentat/writes"
}

# ---------------------------------------------------------------------------
# Backends: the databases. Attributes the engine does not know (path, dsn,
# database, protocol) belong to the driver.
# ---------------------------------------------------------------------------

backend "sqlite" {
  clients        = local.client_kind # var.client_model
  processes      = local.client_processes
  restart        = lookup(var.restart, "sqlite", [])
  drop_caches    = var.drop_caches
  driver         = "sqlite"
  skip_scenarios = concat(var.embedded_skip_scenarios, local.capacity_skip)
  path           = "${var.data_dir}/mentat-${scale.name}.sqlite"
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

# SQLite through the reference adapter program (examples/adapters/), one
# process per session, speaking docs/adapter-protocol.md: the same SQL on
# its own file. -var 'backends=["sqlite", "sqlite_adapter"]' runs both in
# one run, so the pipe's cost per call is read side by side.
backend "sqlite_adapter" {
  clients        = local.client_kind # var.client_model
  processes      = local.client_processes
  driver         = "adapter"
  command        = ["python3", "${spec_home()}/../examples/adapters/sqlite_adapter.py"]
  dialect        = "sqlite"
  skip_scenarios = concat(var.embedded_skip_scenarios, local.capacity_skip)
  path           = "${var.data_dir}/mentat-${scale.name}-adapter.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -262144
  }
  setup      = [file("${local.sql}/sql/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000
  }
}

backend "duckdb" {
  clients        = local.client_kind # var.client_model
  processes      = local.client_processes
  restart        = lookup(var.restart, "duckdb", [])
  drop_caches    = var.drop_caches
  driver         = "duckdb"
  skip_scenarios = concat(var.embedded_skip_scenarios, local.capacity_skip)
  path           = "${var.data_dir}/mentat-${scale.name}.duckdb"
  settings       = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup          = [file("${local.sql}/sql/schema.sql")]
  after_load     = concat([file("${local.sql}/duckdb/post_load.sql")], var.avet ? [file("${local.sql}/duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
}

backend "postgres" {
  clients     = local.client_kind # var.client_model
  processes   = local.client_processes
  restart     = lookup(var.restart, "postgres", [])
  drop_caches = var.drop_caches
  driver      = "postgres"
  dsn         = var.pg_dsn
  database    = "mentat_${scale.name}" # created by the run; never dropped unless it created it
  protocol    = "extended"
  # cold_vs_warm restarts the DSN's own server unless this is "off".
  server_restart = var.pg_server_restart
  settings = {
    work_mem                        = "64MB"
    random_page_cost                = "1.1"
    max_parallel_workers_per_gather = "2"
    effective_io_concurrency        = "200"
  }
  setup      = [file("${local.sql}/postgres/schema.sql")]
  after_load = concat([file("${local.sql}/sql/post_load.sql")], var.avet ? [file("${local.sql}/sql/avet.sql")] : [])
  analyze    = ["ANALYZE"]
  vacuum     = ["VACUUM"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs       = var.pg_load_jobs # parallel COPY streams
    batch_rows = 1000000          # each commit waits for its COPY to end and reach disk: few, large ones
  }
  skip_scenarios = local.capacity_skip # capacity runs only when selected
}

# --- the seed suite's deployments by client model: the same stores as
# sqlite and duckdb (same files, so one load serves both), clients in
# worker processes. Select them with -var 'backends=["sqlite-ext"]'.
backend "sqlite-ext" {
  clients     = "process" # one process per client, as the seed suite's load_extension deployment
  restart     = lookup(var.restart, "sqlite", [])
  drop_caches = var.drop_caches
  driver      = "sqlite"
  path        = "${var.data_dir}/mentat-${scale.name}.sqlite"
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
  skip_scenarios = local.capacity_skip # capacity runs only when selected
}

backend "duckdb-readers" {
  clients     = "process" # reader processes; they open the file read-only (one writing process)
  restart     = lookup(var.restart, "duckdb", [])
  drop_caches = var.drop_caches
  driver      = "duckdb"
  path        = "${var.data_dir}/mentat-${scale.name}.duckdb"
  settings    = { dynamic_or_filter_threshold = 1000 } # lets input_bindings' 100 emails use the index
  setup       = [file("${local.sql}/sql/schema.sql")]
  after_load  = concat([file("${local.sql}/duckdb/post_load.sql")], var.avet ? [file("${local.sql}/duckdb/avet.sql")] : [])
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 122880 # one DuckDB row group per commit
  }
  skip_scenarios = local.capacity_skip # capacity runs only when selected
}
# --- end of the seed suite's deployments ---

# ---------------------------------------------------------------------------
# The suite's own scenarios, after the shared ones.
# ---------------------------------------------------------------------------

scenario "concurrency_sweep" {
  description = "the read mix (q1, q2, pull in equal parts) at every client count"
  clients     = var.clients
  # With adaptive sampling a rep of the mix stops by precision or at 3 s:
  # the p50 of three queries' calls narrows slowly (it may sit between two
  # of them), and the sweep is read for throughput at each client count.
  # With precision = 0 it keeps the seed suite's fixed method.
  sampling {
    max_s = var.precision > 0 ? min(var.max_s, max(var.min_s, 3)) : var.max_s
  }
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

# --- sustained ---
# The seed suite's long run: the read mix for sustained_s seconds on the largest
# selected scale, a row per 10-second window in windows.csv so drift
# shows, with the samplers below recording the server alongside.
locals {
  largest_scale = [for s in ["xl", "l", "m", "s", "xs"] : s if contains(var.scales, s)][0]
}

scenario "sustained" {
  description = "the read mix for sustained_s seconds, reported every 10 s"
  kind        = "sustained"
  duration_s  = var.sustained_s
  window_s    = 10
  clients     = var.sustained_clients
  scales      = [local.largest_scale]
  read {
    mix = [query.q1, query.q2, query.pull]
  }
}

sampler "pg_stat_database" {
  kind     = "sql"
  every_s  = 10
  backends = ["postgres"]
  query    = "SELECT datname, numbackends, xact_commit, xact_rollback, blks_read, blks_hit, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted, temp_bytes, deadlocks FROM pg_stat_database WHERE datname = current_database()"
}

sampler "pg_stat_bgwriter" {
  kind     = "sql"
  every_s  = 10
  backends = ["postgres"]
  query    = "SELECT * FROM pg_stat_bgwriter"
}

sampler "pg_stat_io" {
  kind     = "sql"
  every_s  = 10
  backends = ["postgres"]
  query    = "SELECT backend_type, object, context, reads, writes, extends, hits, evictions, fsyncs FROM pg_stat_io WHERE reads > 0 OR writes > 0 OR hits > 0" # PostgreSQL 16 and later: a SKIP row with the reason on older servers
}

sampler "iostat" {
  kind    = "command"
  every_s = 10
  command = ["iostat", "-d", "-k"]
}

sampler "vmstat" {
  kind    = "command"
  every_s = 10
  command = ["vmstat"]
}

sampler "processes" {
  kind    = "process"
  every_s = 10 # the engine's own process (embedded databases run inside it)
}

sampler "pg_processes" {
  kind      = "process"
  every_s   = 10
  backends  = ["postgres"]
  pid_query = "SELECT pg_backend_pid()" # followed to the postmaster and all its children
}
# --- end sustained ---

# --- capacity ---
# Where each backend falls over: the highest open-loop rate of the read mix
# that keeps its p99 within var.capacity_max_ms, with an interval from
# three bisections at the edge (capacity.csv; every probe in
# logs/capacity-probes.csv). It is a search of up to 30 probes and 5
# minutes per cell, so it runs only when selected:
#   mentat-spec apply specs/full.hcl -var 'scenarios=["capacity"]'
locals {
  capacity_skip = contains(var.scenarios == null ? [] : var.scenarios, "capacity") ? [] : ["capacity"]
}

scenario "capacity" {
  description  = "the highest rate of the read mix whose p99 stays within capacity_max_ms"
  kind         = "capacity"
  start_rate   = 100
  max_probes   = 30
  max_s        = 300
  min_window_s = 1
  max_window_s = 5
  service_level {
    percentile       = 99
    max_ms           = var.capacity_max_ms
    max_error_pct    = 1
    min_achieved_pct = 95
    max_late_pct     = 5
  }
  read {
    clients = var.capacity_clients
    mix     = [query.q1, query.q2, query.pull]
  }
}
# --- end capacity ---
