scale "xs" {
  users = 10
}

dataset "home" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type = "string"
      gen  = seq("user%d@example.com")
    }
  }
}
