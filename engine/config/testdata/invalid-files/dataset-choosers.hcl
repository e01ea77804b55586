# Key choosers and random_bytes in a dataset: the generator refuses a
# target that is not an entity and a type the generator cannot give.

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/friend" {
      type = "ref"
      gen  = latest("nobody") # ERROR: Invalid dataset
    }
    attr "user/bio" {
      type = "long"
      gen  = random_bytes(10) # ERROR: Invalid dataset
    }
    attr "user/rival" {
      type = "string"
      gen  = hotspot("user", 0.1, 0.9) # ERROR: Invalid dataset
    }
  }
}

backend "sqlite" {
  driver = "sqlite"
  path   = "x.sqlite"
}
