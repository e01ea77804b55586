# file() reads next to this file, wherever the spec that includes it is.
query "q1" {
  params = { email = pick("user", "user/email") }
  sql    = file("sql/q1.sql")
}
