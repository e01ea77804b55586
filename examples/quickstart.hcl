# Quickstart: an issue tracker stored as datoms (entity, attribute, value,
# transaction), benchmarked on embedded SQLite at the smallest scale.
#
#   mentat-spec plan  examples/quickstart.hcl     # what would run
#   mentat-spec apply examples/quickstart.hcl     # run it (under a minute)
#
# A run is this file and the files its include blocks read: the knobs and
# databases here, the shared workload in specs/mentat/. Change a value
# there, never Go code; override files (end of this file) change one block.

# ---------------------------------------------------------------------------
# Variables: knobs you set from the command line without editing the file:
#   -var 'scales=["xs","s"]'   or   MENTAT_SPEC_VAR_scales='["s"]'
# ---------------------------------------------------------------------------

variable "scales" {
  type        = list(string)
  default     = ["xs"]
  description = "Scales to run, in order (see specs/mentat/scales.hcl)."
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s", "m", "l", "xl"], s)])
    error_message = "Scales are xs, s, m, l and xl."
  }
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite"]
  description = "Backends to run: sqlite (embedded, no server), duckdb (embedded), postgres (needs pg_dsn), sqlite_adapter (SQLite through the reference adapter program, docs/adapter-protocol.md)."
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

variable "reps" {
  type        = number
  default     = 1
  description = "Repetitions of every point. compare needs at least 4 on each side to decide (-var reps=5 for a gate); with 1 it says it cannot decide."
  validation {
    condition     = var.reps >= 1
    error_message = "reps is at least 1."
  }
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

# ---- write_mixed --------------------------------------------------------------
variable "mixed_s" {
  type        = number
  default     = 3
  description = "write_mixed: seconds of one writer plus the readers."
}

variable "mixed_readers" {
  type        = number
  default     = 2
  description = "write_mixed: reader clients running q1 and q2 during the writes."
}
# ------------------------------------------------------------------------------

locals {
  # The SQL the backends below run to build the datom tables, one directory
  # per dialect where the text differs from the shared default (see
  # specs/mentat/README.md).
  sql = "../specs/mentat"
  # The name prefix of this spec's SQLite and DuckDB files.
  store = "quickstart"
  # write_mixed repeats mixed_s as every point repeats: -var reps=5 gives
  # compare five samples of the writes too.
  mixed_reps = var.reps
  # var.client_model as a backend's two attributes: clients = "goroutine"
  # or "process", or processes = N for a number (null counts as not set).
  client_kind      = can(tonumber(var.client_model)) ? null : var.client_model
  client_processes = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
}

matrix {
  scales    = var.scales
  backends  = var.backends
  scenarios = var.scenarios
}

# How every point is measured: warm-up calls are discarded, then each point
# runs at least min_s seconds and min_n calls, at most max_s seconds; reps
# repetitions, and timings.csv keeps the median. A call longer than probe_s
# is cut: the scenario becomes a "ceiling" row for that scale.
sampling {
  warmup  = 3
  min_s   = 1
  min_n   = 30
  max_s   = 2
  reps    = var.reps
  probe_s = 20
}

# ---------------------------------------------------------------------------
# The workload: every .hcl file of specs/mentat, read as if written here.
#   scales.hcl     named sizes (xs .. xl) the dataset reads as scale.<name>
#   dataset.hcl    the generated data: entities, history, marks, and the
#                  answers the checks compare with (truth)
#   queries.hcl    SQL per dialect, with :name parameters made per call
#   scenarios.hcl  what is measured, and how each answer is checked; a
#                  failed check makes apply exit 1
# A path is relative to this file; a spec elsewhere reaches the same files
# with path = "${spec_home()}/mentat".
# ---------------------------------------------------------------------------

include "mentat" {
  path = "../specs/mentat"
}

# write_mixed (specs/mentat/writes): one writer and readers, then the
# answers after the writes. It reads var.mixed_s and var.mixed_readers.
include "writes" {
  path = "../specs/mentat/writes"
}

# ---------------------------------------------------------------------------
# Backends: the databases. Attributes the engine does not know (path, dsn,
# database, protocol) belong to the driver.
# ---------------------------------------------------------------------------

# SQLite (embedded, no server) and DuckDB (embedded) are shared with other
# specs, in specs/mentat/backends/embedded.hcl; this spec's files are
# <data_dir>/quickstart-<scale>.sqlite and .duckdb (local.store above).
include "embedded" {
  path = "../specs/mentat/backends/embedded.hcl"
}

# SQLite through the reference adapter program, one process per session
# (docs/adapter-protocol.md): -var 'backends=["sqlite_adapter"]'.
include "adapter" {
  path = "../specs/mentat/backends/adapter.hcl"
}

backend "postgres" {
  clients    = local.client_kind # var.client_model
  processes  = local.client_processes
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_quickstart_${scale.name}" # created by the run; never dropped unless it created it
  protocol   = "extended"
  settings   = { work_mem = "64MB" }
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

# ---------------------------------------------------------------------------
# One change without a copy: a file whose name ends in _override.hcl
# changes the blocks it names, attribute by attribute. With
# seqscan_override.hcl holding
#   backend "postgres" { settings = { enable_seqscan = "off" } }
# run
#   mentat-spec apply examples/quickstart.hcl seqscan_override.hcl -var 'backends=["postgres"]'
# An attribute is replaced whole: this settings map drops work_mem unless
# the override repeats it.
# ---------------------------------------------------------------------------
