dataset "users" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("user%d@example.com")
    }
    attr "user/name" {
      type = "string"
      gen  = seq("User %d")
    }
  }
  truth "users" {
    sample = "user"
    n      = 5
    attrs  = ["user/email", "user/name"]
  }
}
