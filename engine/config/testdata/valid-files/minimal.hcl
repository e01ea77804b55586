# The smallest spec: one scale and a dataset. Everything else is optional.

scale "xs" {
  users = 10
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
  }
}
