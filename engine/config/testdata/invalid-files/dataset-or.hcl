# An or block with a single where: nothing to choose between.

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
  }
  truth "lonely_or" {
    count = "van"
    or { # ERROR: Invalid or block
      where {
        attr  = "van/size"
        op    = "in"
        value = [1, 2]
      }
    }
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "/tmp/x.sqlite"
}
