# A syntax error stops the load before anything is decoded.

scale "xs" {
  users = 10 + # ERROR: Invalid expression
}

dataset "d" {
  entity "user" {
    count = scale.users
  }
}
