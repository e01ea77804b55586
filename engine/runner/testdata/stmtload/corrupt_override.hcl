# q3's JSON answer cut after 30 bytes: a value that does not decode.
query "q3" {
  answer = "json"
  sql    = "SELECT substr(json_group_array(json_object('state', state, 'n', n)), 1, 30) FROM (\n${file("${spec_home()}/mentat/sql/q3.sql")}\n) AS q"
}

# q2's EDN answer with its closing brace cut: a case of a for_each check.
query "q2" {
  answer  = "edn"
  columns = ["issue", "title", "state"]
  sql     = "SELECT '#{' || coalesce(group_concat('[' || issue || ' ' || json_quote(title) || ' :' || state || ']', ' '), '') FROM (\n${file("${spec_home()}/mentat/sql/q2.sql")}\n) AS q"
}
