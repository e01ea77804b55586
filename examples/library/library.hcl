# A lending library stored as datoms (entity, attribute, value,
# transaction): members borrow books, books have authors, and loans are
# returned over time. The second example after ../quickstart.hcl, written
# to be read top to bottom by someone who has never seen the tool.
#
#   mentat-spec validate examples/library/library.hcl   # every spec error, with file:line:col
#   mentat-spec plan     examples/library/library.hcl   # what would run; touches no database
#   mentat-spec gen      examples/library/library.hcl -scale xs -o /tmp/lib   # the data as files
#   mentat-spec apply    examples/library/library.hcl   # run it on SQLite at xs (seconds)
#
# A spec has four parts, in this order below:
#   1. knobs: variables, sampling, scales
#   2. the data: one dataset (entities, a history phase, marks, truth)
#   3. the databases: backends, and the SQL queries they run
#   4. scenarios: what is measured, and the checks that fail the run when
#      an answer differs from the generator's truth
# The engine has no code for this workload: everything is in this file and
# the SQL files it reads.

# ---------------------------------------------------------------------------
# 1. Knobs. Set a variable without editing the file:
#      -var 'scales=["xs","s"]'   or   MENTAT_SPEC_VAR_scales='["s"]'
# ---------------------------------------------------------------------------

variable "scales" {
  type        = list(string)
  default     = ["xs"]
  description = "Scales to run, in order (see the scale blocks below)."
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s", "m", "l"], s)])
    error_message = "Scales are xs, s, m and l."
  }
}

variable "backends" {
  type        = list(string)
  default     = ["sqlite"]
  description = "Backends to run: sqlite and duckdb (embedded files), postgres (a server: needs pg_dsn)."
}

variable "pg_dsn" {
  type        = string
  default     = env("MENTAT_SPEC_PG_DSN")
  sensitive   = true # never printed, never written to result files
  description = "PostgreSQL server to create the benchmark databases in (scripts/pg.sh up prints one)."
}

variable "data_dir" {
  type        = string
  default     = "data"
  description = "Where the SQLite and DuckDB files go."
}

locals {
  # The generic datom layout shared with the quickstart: tables, the
  # current state derived after the load, value indexes (per dialect).
  mentat = "../../specs/mentat"
  # This workload's own queries, next to this file.
  sql = "sql"

  # One filtered count, used twice below: by the truth that knows the
  # answer and by the query's parameters, so the two cannot drift apart.
  featured_genre = "fantasy"
  min_rating     = 4.5
}

# Every (scale, backend) pair is a cell of the run, in this order.
matrix {
  scales   = var.scales
  backends = var.backends
}

# How each point is measured: warmup calls are discarded, then calls run
# for at least min_s seconds and min_n calls, at most max_s seconds; reps
# repetitions, of which timings.csv keeps the median. A single call longer
# than probe_s turns the scenario into a "ceiling" row for that cell. Short
# values: an xs run takes seconds. A scenario may override any of these in
# its own sampling block.
sampling {
  warmup  = 2
  min_s   = 0.3
  min_n   = 20
  max_s   = 1
  reps    = 1
  probe_s = 20
}

# Named sizes; the dataset reads them as scale.<name>. xs is about 0.1M
# datoms, each next scale ten times more.
scale "xs" {
  members = 300
  authors = 100
  books   = 4000
  loans   = 20000
}

scale "s" {
  members = 3000
  authors = 1000
  books   = 40000
  loans   = 200000
}

scale "m" {
  members = 30000
  authors = 10000
  books   = 400000
  loans   = 2000000
}

scale "l" {
  members = 300000
  authors = 100000
  books   = 4000000
  loans   = 20000000
}

# ---------------------------------------------------------------------------
# 2. The data. Every value is a pure function of (seed, attribute, id): the
# same seed gives the same library on every machine, and the answers the
# checks compare with (truth, at the end of this block) are computed from
# the generator without reading any database.
# ---------------------------------------------------------------------------

dataset "library" {
  seed    = 7
  tx_size = 500 # entities per transaction of the initial load

  # Entities are created in this order; a ref may point at any kind.
  # An attribute has a type (string, keyword, long, double, boolean,
  # instant, ref), optional unique / index / many, and a generator.
  entity "member" {
    count = scale.members
    attr "member/card" {
      type   = "string"
      unique = true           # a lookup key: indexed by value (AVET)
      gen    = seq("card-%d") # card-0, card-1, ... (the entity's id)
    }
    attr "member/name" {
      type = "string"
      gen  = seq("Member %d")
    }
  }

  entity "author" {
    count = scale.authors
    attr "author/name" {
      type   = "string"
      unique = true
      gen    = seq("Author %d")
    }
  }

  entity "book" {
    count = scale.books
    attr "book/isbn" {
      type   = "string"
      unique = true
      gen    = seq("978-%d")
    }
    attr "book/title" {
      type = "string"
      gen  = seq("Book %d")
    }
    attr "book/genre" {
      type  = "keyword"
      index = true
      # One key, chosen with these relative weights.
      gen = weighted({ fiction = 30, mystery = 15, fantasy = 12, science = 10, history = 10, children = 10, biography = 8, poetry = 5 })
    }
    attr "book/year" {
      type = "long"
      gen  = uniform(1950, 2025) # whole numbers, both ends included
    }
    attr "book/rating" {
      type = "double"
      gen  = uniform_float(1, 5) # in [1, 5)
    }
    attr "book/author" {
      type = "ref"
      gen  = zipf("author", 1.1) # a few prolific authors write most books
    }
  }

  entity "loan" {
    count = scale.loans
    attr "loan/member" {
      type = "ref"
      gen  = zipf("member", 1.2) # a few avid readers borrow most
    }
    attr "loan/book" {
      type = "ref"
      gen  = ref("book") # any book, uniformly
    }
    attr "loan/returned" {
      type = "boolean"
      gen  = chance(0.2) # true for 20% of loans at load time
    }
    attr "loan/due" {
      type = "instant" # stored as epoch milliseconds
      gen  = instant("2025-01-01T00:00:00Z", "2026-07-01T00:00:00Z")
    }
  }

  # After the initial load, a history phase: 30% of loans get a new value
  # of loan/returned (a retract of the old datom and an assert of the new),
  # written in 2 files of transactions. A history always changes the value,
  # so for a boolean it flips it: most of those loans are returned, and the
  # few already returned are reopened.
  history "returns" {
    entity   = "loan"
    attr     = "loan/returned"
    fraction = 0.3
    files    = 2
  }

  # Marks name transaction ids that queries (mark("...")) and truth
  # (as_of, since) refer to.
  mark "t_loaded" {
    after = "initial" # the last tx of the initial load: no return yet
  }
  mark "t_half" {
    before_last = "returns" # the last tx before the final returns file: half of them done
  }

  # Truth: the expected answers, computed by the generator, read by the
  # checks as truth.<name>. Four kinds:
  #   count_by = "attr"          a map: current value -> number of entities
  #   count = "entity" + where   a number: entities matching every filter
  #   sample = "entity"          n seeded entities with attribute values,
  #                              plus, with inverse, the entities whose ref
  #                              points at each (optionally as_of a mark)
  #   changed = "attr"           a number: entities with a datom of attr
  #                              after the mark since
  truth "per_genre" {
    count_by = "book/genre"
  }
  truth "per_status" {
    count_by = "loan/returned" # keys "false" and "true"
  }
  truth "featured_top_rated" {
    count = "book"
    where {
      attr  = "book/genre"
      op    = "="
      value = local.featured_genre
    }
    where {
      attr  = "book/rating"
      op    = ">="
      value = local.min_rating
    }
  }
  # Each sample entry is an object: e (entity id), id (0-based index in
  # its kind) and one key per listed attribute.
  truth "members" {
    sample = "member"
    n      = 20
    attrs  = ["member/card", "member/name"]
  }
  truth "books" {
    sample = "book"
    n      = 20
    attrs  = ["book/isbn", "book/title", "book/genre", "book/year", "book/rating", "book/author"]
  }
  # With inverse, each entry also has refs: the referring entities (here
  # the books whose book/author is the sampled author), each with e, id and
  # its ref_attrs.
  truth "authors_books" {
    sample    = "author"
    n         = 5
    attrs     = ["author/name"]
    inverse   = "book/author"
    ref_attrs = ["book/title", "book/genre", "book/year"]
  }
  truth "members_loans" {
    sample    = "member"
    n         = 5
    attrs     = ["member/card"]
    inverse   = "loan/member"
    ref_attrs = ["loan/book", "loan/returned", "loan/due"]
  }
  # The same kind of answer, as the database stood at t_half.
  truth "members_loans_t_half" {
    sample    = "member"
    n         = 5
    attrs     = ["member/card"]
    inverse   = "loan/member"
    ref_attrs = ["loan/book", "loan/returned"]
    as_of     = "t_half"
  }
  truth "returned_since_loaded" {
    changed = "loan/returned"
    since   = "t_loaded"
  }
}

# ---------------------------------------------------------------------------
# 3. The databases. driver picks the implementation; path, dsn, database
# and protocol belong to the driver. setup runs on a fresh store, the bulk
# load fills attrs and the log_* tables, after_load builds the current
# state (cur_*) and the indexes. The shared files live in
# ../../specs/mentat/: sql/ holds the default text, and duckdb/ and
# postgres/ an override only where that dialect needs one (see its
# README.md).
# ---------------------------------------------------------------------------

backend "sqlite" {
  driver = "sqlite"
  path   = "${var.data_dir}/library-${scale.name}.sqlite"
  settings = {
    journal_mode = "WAL"
    synchronous  = "NORMAL"
    cache_size   = -131072 # KiB: 128 MiB of page cache per connection
  }
  setup = [file("${local.mentat}/sql/schema.sql")]
  after_load = [
    file("${local.mentat}/sql/post_load.sql"),
    file("${local.mentat}/sql/avet.sql"),
    file("${local.sql}/log_indexes.sql"),
  ]
  analyze = ["ANALYZE"] # SQLite plans joins from statistics
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 10000 # rows per transaction
  }
}

backend "duckdb" {
  driver = "duckdb"
  path   = "${var.data_dir}/library-${scale.name}.duckdb"
  setup  = [file("${local.mentat}/sql/schema.sql")]
  # No log_indexes.sql: DuckDB's log is in tx order and its zone maps
  # serve the history queries.
  after_load = [
    file("${local.mentat}/duckdb/post_load.sql"),
    file("${local.mentat}/duckdb/avet.sql"),
  ]
  load {
    tables     = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    batch_rows = 100000
  }
}

backend "postgres" {
  driver   = "postgres"
  dsn      = var.pg_dsn
  database = "mentat_library_${scale.name}" # created by the run; dropped or reloaded only if the run created it
  protocol = "extended"
  settings = { work_mem = "64MB" }
  setup    = [file("${local.mentat}/postgres/schema.sql")] # COLLATE "C" text columns
  after_load = [
    file("${local.mentat}/sql/post_load.sql"),
    file("${local.mentat}/sql/avet.sql"),
    file("${local.sql}/log_indexes.sql"),
  ]
  analyze = ["ANALYZE"]
  vacuum  = ["VACUUM"]
  load {
    tables = { attrs = "attrs", text = "log_text", int = "log_int", real = "log_real" }
    jobs   = 2 # parallel COPY streams
  }
}

# Queries: SQL text (one string, or { default = ..., duckdb = ... } by
# dialect) with :name parameters. params says how each is made for every
# measured call: pick(entity) a random entity id, pick(entity, attr) that
# entity's value of attr, picks(entity, attr, n) n of them as a JSON array,
# mark(name) a mark's tx id, or a constant. Checks set their own values.

query "member_by_card" {
  params = { card = pick("member", "member/card") }
  sql    = file("${local.sql}/member_by_card.sql")
}

query "member_loans" {
  params = { card = pick("member", "member/card") }
  sql    = file("${local.sql}/member_loans.sql")
}

query "author_books" {
  params = { name = pick("author", "author/name") }
  sql    = file("${local.sql}/author_books.sql")
}

query "books_per_genre" {
  sql = file("${local.sql}/books_per_genre.sql")
}

query "loans_per_status" {
  sql = file("${local.sql}/loans_per_status.sql")
}

query "top_rated" {
  params = { genre = local.featured_genre, min_rating = local.min_rating } # constants
  sql    = file("${local.sql}/top_rated.sql")
}

query "loans_as_of" {
  params = { card = pick("member", "member/card"), t = mark("t_half") }
  sql    = file("${local.sql}/loans_as_of.sql")
}

query "changed_since" {
  params = { t = mark("t_loaded") }
  sql    = file("${local.sql}/changed_since.sql")
}

query "pull_book" {
  params = { e = pick("book") }
  sql    = file("${local.mentat}/sql/pull.sql") # generic: every attribute of one entity
}

# ---------------------------------------------------------------------------
# 4. Scenarios. A read block is the measured stream (clients = [1, 8] on
# the scenario would measure each client count). A check runs its query
# once per for_each element (each.value is the element) with params, and
# compares the rows:
#   expect_rows   the exact row count
#   expect_values every row has these column values (and there is a row)
#   expect_set    the rows, on these columns, equal these tuples (any order)
#   expect_map    column key -> column value equals a map exactly
#   expect_sum    a column adds up to a number
# Values compare loosely: numbers numerically, booleans as 1/0.
# ---------------------------------------------------------------------------

scenario "member_by_card" {
  description = "a member by unique card number"
  read {
    query = query.member_by_card
  }
  check "name" {
    query         = query.member_by_card
    for_each      = truth.members
    params        = { card = each.value["member/card"] }
    expect_rows   = 1
    expect_values = { member = each.value.e, name = each.value["member/name"] }
  }
}

scenario "member_loans" {
  description = "a member's loans with book, returned and due (card -> loan/member ref, reversed)"
  read {
    query = query.member_loans
  }
  check "loans" {
    query    = query.member_loans
    for_each = truth.members_loans
    params   = { card = each.value["member/card"] }
    expect_set = {
      columns = ["loan", "book", "returned", "due"]
      rows    = [for l in each.value.refs : [l.e, l["loan/book"], l["loan/returned"], l["loan/due"]]]
    }
  }
}

scenario "author_books" {
  description = "an author's books with title, genre and year (zipf: a few authors have many)"
  read {
    query = query.author_books
  }
  check "books" {
    query    = query.author_books
    for_each = truth.authors_books
    params   = { name = each.value["author/name"] }
    expect_set = {
      columns = ["book", "title", "genre", "year"]
      rows    = [for b in each.value.refs : [b.e, b["book/title"], b["book/genre"], b["book/year"]]]
    }
  }
}

scenario "books_per_genre" {
  description = "books per genre (a full scan of one attribute)"
  read {
    query = query.books_per_genre
  }
  check "per_genre" {
    query      = query.books_per_genre
    expect_map = { key = "genre", value = "n", want = truth.per_genre }
    expect_sum = { column = "n", want = scale.books } # every book has one genre
  }
}

scenario "loans_per_status" {
  description = "loans per returned value, after the returns"
  read {
    query = query.loans_per_status
  }
  check "per_status" {
    query      = query.loans_per_status
    expect_map = { key = "returned", value = "n", want = truth.per_status }
    expect_sum = { column = "n", want = scale.loans }
  }
}

scenario "top_rated" {
  description = "fantasy books rated 4.5 or more (two predicates on two attributes)"
  read {
    query = query.top_rated
  }
  check "count" {
    query       = query.top_rated
    expect_rows = truth.featured_top_rated
  }
}

scenario "loans_as_of" {
  description = "a member's loans as of t_half, read from the log: half the returns done"
  read {
    query = query.loans_as_of
  }
  check "loans_at_t_half" {
    query    = query.loans_as_of
    for_each = truth.members_loans_t_half
    params   = { card = each.value["member/card"] }
    expect_set = {
      columns = ["loan", "book", "returned"]
      rows    = [for l in each.value.refs : [l.e, l["loan/book"], l["loan/returned"]]]
    }
  }
}

scenario "changed_since" {
  description = "loans whose returned changed after the load (the history phase)"
  read {
    query = query.changed_since
  }
  check "count" {
    query       = query.changed_since
    expect_rows = truth.returned_since_loaded
  }
}

scenario "pull_book" {
  description = "pull [*] of a random book: every attribute, as text"
  read {
    query = query.pull_book
  }
  check "attributes" {
    query    = query.pull_book
    for_each = truth.books
    params   = { e = each.value.e }
    expect_set = {
      columns = ["attr", "value"]
      rows    = [for a in ["book/isbn", "book/title", "book/genre", "book/year", "book/rating", "book/author"] : [a, each.value[a]]]
    }
  }
}
