# Three quickstart queries answering in one value, as a store's own query
# function does; the checks are the quickstart's, reading the decoded rows.

# point_lookup: JSON, an array of arrays [[e, "name"]].
query "q1" {
  answer  = "json"
  columns = ["e", "name"]
  sql = {
    default  = "SELECT json_group_array(json_array(e, name)) FROM (\n${file("${spec_home()}/mentat/sql/q1.sql")}\n) AS q"
    postgres = "SELECT json_agg(json_build_array(e, name)) FROM (\n${file("${spec_home()}/mentat/sql/q1.sql")}\n) AS q"
  }
}

# ref_traversal: EDN built in SQL, a set of [issue "title" :state] tuples.
query "q2" {
  answer  = "edn"
  columns = ["issue", "title", "state"]
  sql = {
    default  = "SELECT '#{' || coalesce(group_concat('[' || issue || ' ' || json_quote(title) || ' :' || state || ']', ' '), '') || '}' FROM (\n${file("${spec_home()}/mentat/sql/q2.sql")}\n) AS q"
    postgres = "SELECT '#{' || coalesce(string_agg('[' || issue || ' ' || to_json(title)::text || ' :' || state || ']', ' '), '') || '}' FROM (\n${file("${spec_home()}/mentat/sql/q2.sql")}\n) AS q"
  }
}

# aggregate: JSON, an array of objects [{"state": "open", "n": 3}, ...].
query "q3" {
  answer = "json"
  sql = {
    default  = "SELECT json_group_array(json_object('state', state, 'n', n)) FROM (\n${file("${spec_home()}/mentat/sql/q3.sql")}\n) AS q"
    postgres = "SELECT json_agg(json_build_object('state', state, 'n', n)) FROM (\n${file("${spec_home()}/mentat/sql/q3.sql")}\n) AS q"
  }
}
