# Key chooser and random_bytes generators with bad arguments: errors at
# the call, when the spec loads.

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/pad" {
      type = "string"
      gen  = random_bytes(0) # ERROR: Error in function call
    }
    attr "user/huge" {
      type = "string"
      gen  = random_bytes(2.5) # ERROR: Error in function call
    }
    attr "user/friend" {
      type = "ref"
      gen  = hotspot("user", 0.2, -0.1) # ERROR: Error in function call
    }
    attr "user/rival" {
      type = "ref"
      gen  = scrambled_zipf("user", 0) # ERROR: Error in function call
    }
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "x.sqlite"
}
