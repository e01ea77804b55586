# Key choosers and uniform() parameters used where they make no sense.

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "x.sqlite"
}

locals {
  not_a_chooser = uniform(1, 2)
}

query "pick_uniform" {
  params = { e = pick(local.not_a_chooser) } # ERROR: Error in function call
  sql    = "SELECT :e"
}

query "unknown_kind" {
  params = { e = pick(zipf("nobody", 0.99)) } # ERROR: Invalid query parameter
  sql    = "SELECT :e"
}

query "bare_chooser" {
  params = { e = scrambled_zipf("user") } # ERROR: Invalid query parameter
  sql    = "SELECT :e"
}

query "other_generator" {
  params = { e = seq("x%d") } # ERROR: Invalid query parameter
  sql    = "SELECT :e"
}

query "bad_exponent" {
  params = { e = pick(latest("user", -1)) } # ERROR: Error in function call
  sql    = "SELECT :e"
}

query "too_many" {
  params = { e = pick(scrambled_zipf("user", 0.9, 2)) } # ERROR: Error in function call
  sql    = "SELECT :e"
}

query "bad_fraction" {
  params = { e = pick(hotspot("user", 1.5, 0.5)) } # ERROR: Error in function call
  sql    = "SELECT :e"
}

query "picks_chooser" {
  params = { e = picks(zipf("user", 1), "user/email", 2) } # ERROR: Invalid function argument
  sql    = "SELECT :e"
}

scenario "s" {
  read {
    mix = [query.pick_uniform]
  }
}
