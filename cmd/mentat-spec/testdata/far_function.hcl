scale "xs" {
  users = frobnicate(10)
}
