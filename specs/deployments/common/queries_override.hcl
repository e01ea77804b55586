# ---------------------------------------------------------------------------
# The mentat workload's queries as a mentat deployment takes them: the
# Datalog text (edn/*.edn, written from the seed suite's descriptions) and its
# inputs go to the store's own query function, edn_q(query, inputs[,
# options]), both BOUND as parameters; nothing is spliced into a literal,
# so no protocol can rewrite the `:keywords` inside the Datalog (the
# seed suite's reason for pgbench -M simple). The inputs are an EDN vector of
# the values of the query's `:in` after `$`, made by the database from the
# bound values (a JSON array of strings and numbers is also EDN: commas are
# whitespace); as_of and since pass the seed suite's options ({"asOf": t},
# {"since": t}) as a third argument.
#
# The answer comes back as one value, decoded into rows by the engine for
# the checks: EDN on SQLite and DuckDB, jsonb on PostgreSQL (local.answer,
# set by the including spec). `columns` names the tuples' positions as the
# shared checks (specs/mentat/scenarios.hcl) read them; `edn` is what the
# backend's explain statement, SELECT mentat_explain(:q), binds as :q.
#
# An override file: each block changes the block of the same name that
# specs/mentat/queries.hcl (and writes/write_mixed.hcl) declares, so the
# scenarios and checks there run these texts unchanged.
# ---------------------------------------------------------------------------

query "q1" {
  edn     = file("edn/q1.edn")
  params  = { q_text = file("edn/q1.edn"), email = pick("user", "user/email") }
  answer  = local.answer
  columns = ["e", "name"]
  sql = {
    default  = "SELECT edn_q(:q_text, json_array(:email))"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), CAST(json_array(CAST(:email AS VARCHAR)) AS VARCHAR))"
    postgres = "SELECT edn_q(CAST(:q_text AS text), CAST(jsonb_build_array(CAST(:email AS text)) AS text))"
  }
}

query "q2" {
  edn     = file("edn/q2.edn")
  params  = { q_text = file("edn/q2.edn"), email = pick("user", "user/email") }
  answer  = local.answer
  columns = ["issue", "title", "state"]
  sql = {
    default  = "SELECT edn_q(:q_text, json_array(:email))"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), CAST(json_array(CAST(:email AS VARCHAR)) AS VARCHAR))"
    postgres = "SELECT edn_q(CAST(:q_text AS text), CAST(jsonb_build_array(CAST(:email AS text)) AS text))"
  }
}

query "q3" {
  edn     = file("edn/q3.edn")
  params  = { q_text = file("edn/q3.edn") }
  answer  = local.answer
  columns = ["state", "n"]
  sql = {
    default  = "SELECT edn_q(:q_text, '[]')"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), '[]')"
    postgres = "SELECT edn_q(CAST(:q_text AS text), '[]')"
  }
}

query "q4" {
  edn     = file("edn/q4.edn")
  params  = { q_text = file("edn/q4.edn") }
  answer  = local.answer
  columns = ["issue"]
  sql = {
    default  = "SELECT edn_q(:q_text, '[]')"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), '[]')"
    postgres = "SELECT edn_q(CAST(:q_text AS text), '[]')"
  }
}

# pull [*] as (attribute, value) tuples: the seed suite's edn_pull('[*]', e)
# answers one map, which decodes as one row, while the shared check reads
# one row per attribute value.
query "pull" {
  edn     = file("edn/pull.edn")
  params  = { q_text = file("edn/pull.edn"), e = pick("issue") }
  answer  = local.answer
  columns = ["attr", "value"]
  sql = {
    default  = "SELECT edn_q(:q_text, json_array(:e))"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), CAST(json_array(CAST(:e AS BIGINT)) AS VARCHAR))"
    postgres = "SELECT edn_q(CAST(:q_text AS text), CAST(jsonb_build_array(CAST(:e AS bigint)) AS text))"
  }
}

query "as_of" {
  edn     = file("edn/q2.edn") # q2 with {"asOf": t_mid}
  params  = { q_text = file("edn/q2.edn"), email = pick("user", "user/email"), t = mark("t_mid") }
  answer  = local.answer
  columns = ["issue", "title", "state"]
  sql = {
    default  = "SELECT edn_q(:q_text, json_array(:email), json_object('asOf', :t))"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), CAST(json_array(CAST(:email AS VARCHAR)) AS VARCHAR), CAST(json_object('asOf', CAST(:t AS BIGINT)) AS VARCHAR))"
    postgres = "SELECT edn_q(CAST(:q_text AS text), CAST(jsonb_build_array(CAST(:email AS text)) AS text), jsonb_build_object('asOf', CAST(:t AS bigint)))"
  }
}

query "since" {
  edn     = file("edn/since.edn")
  params  = { q_text = file("edn/since.edn"), t = mark("t_since") }
  answer  = local.answer
  columns = ["issue"]
  sql = {
    default  = "SELECT edn_q(:q_text, '[]', json_object('since', :t))"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), '[]', CAST(json_object('since', CAST(:t AS BIGINT)) AS VARCHAR))"
    postgres = "SELECT edn_q(CAST(:q_text AS text), '[]', jsonb_build_object('since', CAST(:t AS bigint)))"
  }
}

# :emails is a JSON array of strings: in brackets, the EDN vector whose
# one element is the collection bound to [?email ...].
query "input_bindings" {
  edn     = file("edn/input_bindings.edn")
  params  = { q_text = file("edn/input_bindings.edn"), emails = picks("user", "user/email", 100) }
  answer  = local.answer
  columns = ["email", "name"]
  sql = {
    default  = "SELECT edn_q(:q_text, '[' || :emails || ']')"
    duckdb   = "SELECT edn_q(CAST(:q_text AS VARCHAR), '[' || CAST(:emails AS VARCHAR) || ']')"
    postgres = "SELECT edn_q(CAST(:q_text AS text), '[' || CAST(:emails AS text) || ']')"
  }
}

# write_mixed's write: one datom through the store's transact function.
# A write binds only its own parameters (:e, :a, :v, :tx, :k), so the
# tx-data is put together by the database from the bound :e and :v; the
# attribute is the generator's (state_change writes issue/state), :a and
# :tx are the engine's numbering, which the store replaces with its own.
# A cardinality-one :db/add retracts the old value in the store itself.
query "write_state" {
  sql = {
    default  = "SELECT edn_t('[[:db/add ' || :e || ' :issue/state :' || :v || ']]')"
    duckdb   = "SELECT edn_t('[[:db/add ' || CAST(:e AS VARCHAR) || ' :issue/state :' || CAST(:v AS VARCHAR) || ']]')"
    postgres = "SELECT edn_t('[[:db/add ' || CAST(:e AS text) || ' :issue/state :' || CAST(:v AS text) || ']]')"
  }
}

# write_mixed's verify read: the state of the issue written last. A
# verify query binds only :e, so its Datalog is a literal of the SQL
# (quoted: the engine's parameter parser skips it); its one-value answer
# is decoded as the checks decode theirs.
query "state_now" {
  answer  = local.answer
  columns = ["v"]
  sql = {
    default  = "SELECT edn_q('[:find ?s :in $ ?e :where [?e :issue/state ?s]]', json_array(:e))"
    duckdb   = "SELECT edn_q('[:find ?s :in $ ?e :where [?e :issue/state ?s]]', CAST(json_array(CAST(:e AS BIGINT)) AS VARCHAR))"
    postgres = "SELECT edn_q('[:find ?s :in $ ?e :where [?e :issue/state ?s]]', CAST(jsonb_build_array(CAST(:e AS bigint)) AS text))"
  }
}
