variable "dsn" {
  type = string
}

scale "xs" {
  users = 1
}

dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/email" {
      type   = "string"
      unique = true
      gen    = seq("u%d@example.com")
    }
  }
}
