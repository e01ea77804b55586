# ---------------------------------------------------------------------------
# Scales of the mentat workload: named sizes the dataset reads as
# scale.<name> (scale.users, ...). A spec runs the ones its matrix names.
# ---------------------------------------------------------------------------

scale "xs" {
  users  = 200
  issues = 13000
  labels = 50
}

scale "s" {
  users  = 1600
  issues = 130000
  labels = 200
}

scale "m" {
  users  = 16000
  issues = 1300000
  labels = 500
}

scale "l" {
  users  = 160000
  issues = 13000000
  labels = 1000
}

scale "xl" {
  users  = 500000
  issues = 40000000
  labels = 2000
}
