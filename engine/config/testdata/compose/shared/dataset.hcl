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
