# Filters of a truth: an operator that is none, a value that is no
# string, number or bool; a good between and a good or beside them.

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
  truth "bad_op" {
    count = "van"
    where {
      attr  = "van/size"
      op    = "like" # ERROR: Unknown operator
      value = 3
    }
  }
  truth "bad_value" {
    count = "van"
    where {
      attr  = "van/size"
      op    = "="
      value = [3] # ERROR: Invalid filter value
    }
  }
  truth "good" {
    count = "van"
    where {
      attr  = "van/size"
      op    = "between"
      value = [2, 4]
    }
    or {
      where {
        attr  = "van/size"
        op    = "<"
        value = 2
      }
      where {
        attr  = "van/size"
        op    = ">"
        value = 7
      }
    }
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "/tmp/x.sqlite"
}
