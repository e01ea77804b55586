# A variable's default that fails its validation.

variable "scales" {
  type    = list(string)
  default = ["xs", "huge"]
  validation {
    condition     = alltrue([for s in var.scales : contains(["xs", "s"], s)]) # ERROR: Invalid value for variable
    error_message = "Scales are xs and s."
  }
}

variable "ok" {
  type    = number
  default = 3
  validation {
    condition     = var.ok > 0
    error_message = "Must be positive."
  }
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
