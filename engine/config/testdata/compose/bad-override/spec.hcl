locals {
  l = 1
}

sampling {
  min_s = 1
}

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type = "string"
      gen  = seq("user%d@example.com")
    }
  }
}
