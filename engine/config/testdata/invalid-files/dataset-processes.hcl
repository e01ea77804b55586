# Mistakes in the features of a second and third workload: dependent
# entities, process histories, ordering, paths, aggregates and filters.
# Every error points at the attribute or block at fault.

scale "xs" {
  vans = 10
}

dataset "d" {
  entity "van" {
    count = scale.vans
    attr "van/plate" {
      type   = "string"
      unique = true
      gen    = seq("VAN-%05d")
    }
    attr "van/capacity" {
      type = "long"
      gen  = uniform(1, 9)
    }
  }
  entity "route" {
    parent     = "vann" # ERROR: Invalid dataset
    per_parent = uniform(1, 3)
    attr "route/day" {
      type = "long"
      gen  = ordinal() # ERROR: Invalid dataset
    }
  }
  entity "stop" {
    parent     = "van"
    per_parent = uniform(1, 3)
    attr "stop/van" {
      type = "ref"
      gen  = parent()
    }
    attr "stop/status" {
      type = "keyword"
      gen  = const("open")
    }
    attr "stop/at" {
      type = "instant"
      gen  = instant("2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z")
    }
    attr "stop/due" {
      type = "instant"
      gen  = offset("stop/nope", "1h", "2h") # ERROR: Invalid dataset
    }
    attr "stop/size" {
      type = "long"
      gen  = uniform(1, 9)
    }
  }
  history "progress" {
    entity    = "stop"
    attr      = "stop/status"
    states    = ["open", "closed"]
    fractions = [0.5, 0.5] # ERROR: Invalid dataset
    time      = "stop/at"
    delay     = ["1h", "2h"]
  }
  history "resize" {
    entity   = "stop"
    attr     = "stop/size"
    fraction = 0.5
    gen      = uniform(1, 9)
  }
  history "resize_again" {
    entity   = "stop"
    attr     = "stop/size" # ERROR: Invalid dataset
    fraction = 0.5
    gen      = uniform(1, 9)
  }
  history "late" {
    entity   = "stop"
    attr     = "stop/size"
    fraction = 0.1
    after    = "resize_later" # ERROR: Invalid dataset
  }
  truth "bad_path" {
    sum = "stop/van.van/plates" # ERROR: Invalid dataset
  }
  truth "text_sum" {
    avg = "van/plate" # ERROR: Invalid dataset
  }
  truth "bad_between" {
    count = "stop"
    where { # ERROR: Invalid dataset
      attr  = "stop/size"
      op    = "between"
      value = [1]
    }
  }
  truth "ids" { # ERROR: Invalid dataset
    count = "van"
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "/tmp/x.sqlite"
}
