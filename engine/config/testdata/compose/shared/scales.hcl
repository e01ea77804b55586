scale "xs" {
  users = 10
}
