query "q1" {
  params = { email = pick("user", "user/email") }
  sql    = file("${local.sql}/q1.sql")
}
