# A threshold attribute the schema does not know is refused at its line.

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

threshold "typo" {
  p99 = 5 # ERROR: Unsupported argument
}
