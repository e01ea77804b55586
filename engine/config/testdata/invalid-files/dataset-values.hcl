# Dataset expressions evaluated per scale: references, types and
# generator arguments.

scale "xs" {
  users = 10
}

scale "s" {
  users = 20
}

dataset "d" {
  seed    = "forty-two" # ERROR: Incorrect attribute value type
  tx_size = 0           # ERROR: Invalid tx_size
  entity "user" {
    count = scale.userz # ERROR: Unsupported attribute
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("no placeholder") # ERROR: Error in function call
    }
    attr "user/age" {
      type = "integer" # ERROR: Unknown value type
      gen  = uniform(5, 1) # ERROR: Error in function call
    }
    attr "user/boss" {
      type = "ref"
      gen  = zipf("user", -1) # ERROR: Error in function call
    }
    attr "user/kind" {
      type = "keyword"
      gen  = weighted({}) # ERROR: Error in function call
    }
    attr "user/flag" {
      type = "boolean"
      gen  = "yes" # ERROR: Invalid generator
    }
  }
  entity "org" {
    count = var.nope # ERROR: Unsupported attribute
    attr "org/name" {
      type = "string"
      gen  = seq("org-%d")
    }
  }
}
