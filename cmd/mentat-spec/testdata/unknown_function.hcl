scale "xs" {
  users = epoch_msec(10)
}
