# Variables without a value, or with a default of the wrong type.

variable "dsn" { # ERROR: No value for required variable
  type = string
}

variable "n" {
  type    = number
  default = "many" # ERROR: Invalid value for variable
}

scale "xs" {
  users = 10
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
