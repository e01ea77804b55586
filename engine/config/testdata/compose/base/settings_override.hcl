# Replaces the whole settings map (not key by key), and nothing else.
backend "sqlite" {
  settings = { synchronous = "OFF" }
}
