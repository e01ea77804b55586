# ---------------------------------------------------------------------------
# The knobs every deployment spec shares (sqlite-ext.hcl, duckdb.hcl,
# pg_mentat.hcl each include this directory): what runs, how it is
# sampled, how the tx-data is cut into the store's transactions. The
# spec itself declares its backend, its extension variable and
# local.answer (the format its store answers in).
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

variable "scenarios" {
  type        = list(string)
  default     = null
  description = "Scenarios to run, e.g. -var 'scenarios=[\"point_lookup\"]'; null (the default) runs all."
}

variable "reps" {
  type        = number
  default     = 3
  description = "Repetitions of every point (the seed suite: 3); timings.csv keeps the median."
  validation {
    condition     = var.reps >= 1
    error_message = "reps is at least 1."
  }
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB stores go."
}

# How clients run. The seed suite ran sqlite-ext and DuckDB clients as processes,
# each with its own host connection (and so its own loaded extension).
variable "client_model" {
  type        = any
  default     = "process"
  description = "How clients run: process (one worker process per client, as the seed suite), goroutine (one engine process) or a whole number N of worker processes."
  validation {
    condition     = can(regex("^(goroutine|process|[1-9][0-9]*)$", tostring(var.client_model)))
    error_message = "client_model is goroutine, process or a whole number of worker processes (at least 1)."
  }
}

variable "batch_datoms" {
  type        = number
  default     = 3800
  description = "Datoms per edn_t call, one store transaction (the seed suite's loader: 500 issues, about 3.8K datoms). The embedded store asserts below 5,461."
  validation {
    condition     = var.batch_datoms >= 1 && var.batch_datoms < 5461
    error_message = "batch_datoms is between 1 and 5,460: mentat's SQLite layer asserts 6 * n < 32766 per transaction."
  }
}

variable "ids" {
  type        = string
  default     = "entity"
  description = "entity: the generator's entity ids, chosen by the caller (pg_mentat accepts them); tempid: string tempids the store resolves (the seed suite's sqlite-ext and duckdb loaders). See specs/deployments/README.md: with tempids the checks that read entity ids cannot hold."
  validation {
    condition     = contains(["entity", "tempid"], var.ids)
    error_message = "ids is entity or tempid."
  }
}

variable "load_jobs" {
  type        = number
  default     = 1
  description = "Parallel edn_t sessions on disjoint transaction ranges (SQLite and DuckDB take one writer at a time)."
}

# ---- write_mixed (specs/mentat/writes) ----------------------------------------
variable "mixed_s" {
  type        = number
  default     = 5
  description = "write_mixed: seconds of one writer (edn_t, one datom per transaction) plus the readers."
}

variable "mixed_readers" {
  type        = number
  default     = 2
  description = "write_mixed: reader clients running q1 and q2 during the writes."
}

locals {
  mixed_reps       = var.reps
  client_kind      = can(tonumber(var.client_model)) ? null : var.client_model
  client_processes = can(tonumber(var.client_model)) ? tonumber(var.client_model) : null
}

variable "min_s" {
  type        = number
  default     = 10
  description = "Each point runs at least this many seconds and 30 calls (the seed suite: MIN_S 10) ..."
}

variable "max_s" {
  type        = number
  default     = 60
  description = "... and at most this many (the seed suite: MAX_S 60)."
}

variable "load_max_s" {
  type        = number
  default     = 5400
  description = "The per-backend cap of the edn_t load (the seed suite: LOAD_MAX_S 5400): past it a ceiling row with the rate reached, and the scale's scenarios are skipped."
}

# The seed suite's fixed method: 3 warm-up calls, min_s/min_n/max_s, reps, a
# per-call ceiling of 20 s, checks capped at 120 s.
sampling {
  warmup     = 3
  min_s      = var.min_s
  min_n      = 30
  max_s      = var.max_s
  reps       = var.reps
  probe_s    = 20
  check_s    = 120
  load_max_s = var.load_max_s
}
