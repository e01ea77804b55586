# q3's JSON answer cut after 30 bytes: a value that does not decode.
query "q3" {
  answer = "json"
  sql    = "SELECT substr(json_group_array(json_object('state', state, 'n', n)), 1, 30) FROM (\n${file("${spec_home()}/mentat/sql/q3.sql")}\n) AS q"
}
