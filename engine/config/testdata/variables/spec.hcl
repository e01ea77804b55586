# Variables of every kind, for the precedence and parsing tests.

variable "n" {
  type    = number
  default = 1
}

variable "s" {
  type    = string
  default = "default"
}

variable "l" {
  type    = list(string)
  default = ["a"]
}

variable "b" {
  type    = bool
  default = false
}

variable "any" {
  default = "any"
}

variable "secret" {
  type      = string
  default   = env("SECRET_FROM_ENV", "fallback")
  sensitive = true
}

scale "xs" {
  users = var.n
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
