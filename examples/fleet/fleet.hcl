# A parcel-delivery fleet stored as datoms: depots own vans, each van
# drives a few routes, each route calls at a few stops. Routes move
# through planned -> dispatched -> completed after the load, stamping the
# time of each move. The third example, after ../quickstart.hcl and
# ../library/; README.md beside this file explains every block.
#
#   mentat-spec validate examples/fleet/fleet.hcl
#   mentat-spec apply    examples/fleet/fleet.hcl                       # SQLite at xs
#   mentat-spec apply    examples/fleet/fleet.hcl -var 'backends=["sqlite","duckdb","postgres"]'

variable "scales" {
  type        = list(string)
  default     = ["xs"]
  description = "Scales to run, in order."
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite"]
  description = "sqlite and duckdb (embedded files), postgres (needs pg_dsn)."
}

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true
  description = "PostgreSQL server to create the benchmark databases in."
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

locals {
  mentat = "../../specs/mentat" # the shared datom layout
  sql    = "sql"                # this workload's queries
  # An instant written once: the truth filters on it and the query
  # receives it as epoch milliseconds (epoch_ms).
  window_from = "2025-03-01T00:00:00Z"
  window_to   = timeadd(local.window_from, "30d")
  big_van     = 150
  min_parcels = 10
}

matrix {
  scales   = var.scales
  backends = var.backends
}

sampling {
  warmup  = 2
  min_s   = 0.3
  min_n   = 20
  max_s   = 1
  reps    = 1
  probe_s = 20
}

scale "xs" {
  depots = 8
  vans   = 300
}

scale "s" {
  depots = 40
  vans   = 20000
}

dataset "fleet" {
  seed    = 7
  tx_size = 500

  entity "depot" {
    count = scale.depots
    attr "depot/code" {
      type   = "string"
      unique = true
      gen    = seq("DEP-%03d") # zero-padded: DEP-007
    }
    attr "depot/city" {
      type  = "keyword"
      index = true
      gen   = weighted({ lyon = 3, lille = 2, nantes = 2, metz = 1 })
    }
  }

  entity "van" {
    count = scale.vans
    attr "van/plate" {
      type   = "string"
      unique = true
      gen    = seq("VAN-%05d")
    }
    attr "van/depot" {
      type = "ref"
      gen  = ref("depot")
    }
    attr "van/capacity" {
      type = "long"
      gen  = uniform(50, 200) # parcels
    }
  }

  # Dependent data: every van drives 1 to 4 routes.
  entity "route" {
    parent     = "van"
    per_parent = uniform(1, 4)
    attr "route/code" {
      type   = "string"
      unique = true
      gen    = seq("R-%07d")
    }
    attr "route/van" {
      type = "ref"
      gen  = parent()
    }
    attr "route/day" {
      type = "long"
      gen  = ordinal() # 1 for the van's first route, 2 for its second...
    }
    attr "route/starts" {
      type = "instant"
      gen  = instant("2025-01-01T00:00:00Z", "2025-07-01T00:00:00Z")
    }
    attr "route/planned_end" {
      type = "instant"
      gen  = offset("route/starts", "2h", "9h") # derived: after the start
    }
    attr "route/status" {
      type  = "keyword"
      index = true
      gen   = const("planned")
    }
    attr "route/updated" {
      type = "instant"
      gen  = offset("route/starts", 0, "1h")
    }
  }

  # Dependent data two levels down: every route calls at 2 to 8 stops.
  entity "stop" {
    parent     = "route"
    per_parent = weighted({ "2" = 1, "4" = 3, "6" = 2, "8" = 1 })
    attr "stop/route" {
      type = "ref"
      gen  = parent()
    }
    attr "stop/seq" {
      type = "long"
      gen  = ordinal()
    }
    attr "stop/parcels" {
      type = "long"
      gen  = uniform(1, 20)
    }
    attr "stop/zone" {
      type = "keyword"
      gen  = weighted({ north = 1, south = 1, east = 1, west = 1 })
    }
  }

  # A process: 80% of planned routes are dispatched, then 90% of those
  # complete; each step advances route/updated by 30 minutes to 10 hours.
  history "route_progress" {
    entity    = "route"
    attr      = "route/status"
    states    = ["planned", "dispatched", "completed"]
    fractions = [0.8, 0.9]
    time      = "route/updated"
    delay     = ["30m", "10h"]
    files     = 2
  }

  # New values from a generator: 10% of stops get a recount of parcels.
  history "recount" {
    entity   = "stop"
    attr     = "stop/parcels"
    fraction = 0.1
    gen      = uniform(0, 30)
  }

  # A second history on the same attribute must say which comes first.
  history "late_recount" {
    entity   = "stop"
    attr     = "stop/parcels"
    fraction = 0.05
    gen      = uniform(0, 30)
    after    = "recount"
  }

  mark "t_loaded" {
    after = "initial"
  }
  mark "t_before_last" {
    before_last = "route_progress" # before the last file of the completing step
  }

  truth "routes_by_status" {
    count_by = "route/status"
  }
  truth "parcels_per_city" {
    sum = "stop/parcels"
    by  = "stop/route.route/van.van/depot.depot/city" # three ref hops
  }
  truth "capacity_per_city" {
    avg = "van/capacity"
    by  = "van/depot.depot/city"
  }
  truth "first_start" {
    min = "route/starts"
  }
  truth "last_end" {
    max = "route/planned_end"
  }
  truth "busy_window" {
    count = "route"
    where {
      attr  = "route/starts"
      op    = "between"
      value = [local.window_from, local.window_to]
    }
    or {
      where {
        attr  = "route/status"
        op    = "="
        value = "completed"
      }
      where {
        attr  = "route/van.van/capacity"
        op    = ">="
        value = local.big_van
      }
    }
  }
  truth "zone_stops" {
    count = "stop"
    where {
      attr  = "stop/zone"
      op    = "in"
      value = ["north", "east"]
    }
    where {
      attr  = "stop/parcels"
      op    = ">="
      value = local.min_parcels
    }
  }
  truth "status_since" {
    changed = "route/status"
    since   = "t_before_last"
  }
  truth "sample_vans" {
    sample = "van"
    n      = 10
    attrs  = ["van/plate", "van/capacity", "van/depot.depot/code"]
  }
  truth "sample_routes" {
    sample = "route"
    n      = 15
    key    = "route/code"
    attrs  = ["route/status", "route/day", "route/planned_end", "route/updated", "route/van.van/plate"]
  }
  truth "route_stops" {
    sample    = "route"
    n         = 10
    key       = "route/code"
    inverse   = "stop/route"
    ref_attrs = ["stop/seq", "stop/parcels"]
  }
}

backend "sqlite" {
  driver     = "sqlite"
  path       = "${var.data_dir}/fleet-${scale.name}.sqlite"
  settings   = { journal_mode = "WAL", synchronous = "NORMAL" }
  setup      = [file("${local.mentat}/sql/schema.sql")]
  after_load = [file("${local.mentat}/sql/post_load.sql"), file("${local.mentat}/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000
  }
}

backend "duckdb" {
  driver     = "duckdb"
  path       = "${var.data_dir}/fleet-${scale.name}.duckdb"
  setup      = [file("${local.mentat}/sql/schema.sql")]
  after_load = [file("${local.mentat}/duckdb/post_load.sql"), file("${local.mentat}/duckdb/avet.sql")]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 100000
  }
}

backend "postgres" {
  driver     = "postgres"
  dsn        = var.pg_dsn
  database   = "mentat_fleet_${scale.name}"
  protocol   = "extended"
  setup      = [file("${local.mentat}/postgres/schema.sql")]
  after_load = [file("${local.mentat}/sql/post_load.sql"), file("${local.mentat}/sql/avet.sql")]
  analyze    = ["ANALYZE"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
  }
}

query "van_by_plate" {
  params = { plate = pick("van", "van/plate") }
  sql    = file("${local.sql}/van_by_plate.sql")
}

query "routes_per_status" {
  sql = file("${local.sql}/routes_per_status.sql")
}

query "parcels_per_city" {
  sql = file("${local.sql}/parcels_per_city.sql")
}

query "capacity_per_city" {
  sql = file("${local.sql}/capacity_per_city.sql")
}

query "busy_window" {
  params = { from = epoch_ms(local.window_from), to = epoch_ms(local.window_to), big = local.big_van }
  sql    = file("${local.sql}/busy_window.sql")
}

query "zone_stops" {
  params = { min = local.min_parcels }
  sql    = file("${local.sql}/zone_stops.sql")
}

query "status_since" {
  params = { t = mark("t_before_last") }
  sql    = file("${local.sql}/status_since.sql")
}

query "route_by_code" {
  params = { code = pick("route", "route/code") }
  sql    = file("${local.sql}/route_by_code.sql")
}

query "route_stops" {
  params = { route = pick("route") }
  sql    = file("${local.sql}/route_stops.sql")
}

query "extremes" {
  sql = file("${local.sql}/extremes.sql")
}

scenario "van_lookup" {
  read {
    query = query.van_by_plate
  }
  check "depot" {
    query         = query.van_by_plate
    for_each      = truth.sample_vans # cases labelled by plate, the unique attribute
    params        = { plate = each.value["van/plate"] }
    expect_rows   = 1
    expect_values = { van = each.value.e, capacity = each.value["van/capacity"], depot_code = each.value["van/depot.depot/code"] }
  }
}

scenario "status_counts" {
  read {
    query = query.routes_per_status
  }
  check "per_status" {
    query      = query.routes_per_status
    expect_map = { key = "status", value = "n", want = truth.routes_by_status }
  }
}

scenario "parcels_by_city" {
  read {
    query = query.parcels_per_city
  }
  check "sums" {
    query      = query.parcels_per_city
    expect_map = { key = "city", value = "parcels", want = truth.parcels_per_city }
  }
}

scenario "capacity_by_city" {
  read {
    query = query.capacity_per_city
  }
  check "averages" {
    query      = query.capacity_per_city
    expect_map = { key = "city", value = "avg_capacity", want = truth.capacity_per_city }
  }
}

scenario "busy_window" {
  read {
    query = query.busy_window
  }
  check "routes" {
    query      = query.busy_window
    expect_ids = { column = "route", want = truth.ids.busy_window }
  }
}

scenario "zone_stops" {
  read {
    query = query.zone_stops
  }
  check "stops" {
    query      = query.zone_stops
    expect_ids = { column = "stop", want = truth.ids.zone_stops }
  }
}

scenario "status_since" {
  read {
    query = query.status_since
  }
  check "routes" {
    query      = query.status_since
    expect_ids = { column = "route", want = truth.ids.status_since }
  }
}

scenario "route_lookup" {
  read {
    query = query.route_by_code
  }
  check "detail" {
    query    = query.route_by_code
    for_each = truth.sample_routes # cases labelled by route code
    params   = { code = each.value.key }
    expect_values = {
      route       = each.value.e
      status      = each.value["route/status"]
      day         = each.value["route/day"]
      planned_end = each.value["route/planned_end"]
      updated     = each.value["route/updated"]
      plate       = each.value["route/van.van/plate"]
    }
  }
}

scenario "route_stops" {
  read {
    query = query.route_stops
  }
  check "stops" {
    query    = query.route_stops
    for_each = truth.route_stops
    params   = { route = each.value.e }
    expect_set = {
      columns = ["stop", "seq", "parcels"]
      rows    = [for s in each.value.refs : [s.e, s["stop/seq"], s["stop/parcels"]]]
    }
  }
}

scenario "extremes" {
  read {
    query = query.extremes
  }
  check "bounds" {
    query         = query.extremes
    expect_values = { first_start = truth.first_start, last_end = truth.last_end }
  }
}
