scale "xs" {
  users  = 20
  issues = 100
}
