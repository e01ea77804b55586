scale "xs" {
  users = epoch_ms(10)
}
