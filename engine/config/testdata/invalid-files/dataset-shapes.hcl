# Dependent entities and histories whose shape is wrong before any value
# is evaluated: count and parent together, a process without fractions,
# a time without a delay.

scale "xs" {
  vans = 10
}

dataset "d" {
  entity "van" {
    count = scale.vans
    attr "van/size" {
      type = "long"
      gen  = uniform(1, 9)
    }
    attr "van/at" {
      type = "instant"
      gen  = instant("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z")
    }
  }
  entity "shift" { # ERROR: Invalid entity
    count      = 3
    parent     = "van"
    per_parent = uniform(1, 2)
    attr "shift/n" {
      type = "long"
      gen  = uniform(1, 2)
    }
  }
  history "half" { # ERROR: Invalid history
    entity = "van"
    attr   = "van/size"
    states = ["1", "2"]
  }
  history "timed" { # ERROR: Invalid history
    entity   = "van"
    attr     = "van/size"
    fraction = 0.5
    time     = "van/at"
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "/tmp/x.sqlite"
}
