include "missing" {
  path = "no-such-dir" # ERROR: Cannot read include
}

include "missing" { # ERROR: Duplicate include "missing"
  path = "elsewhere"
}

include "nopath" { # ERROR: Missing required argument
}

include "empty" {
  path = "" # ERROR: Invalid include path
}

include "var" {
  path = var.dir # ERROR: Variables not allowed
}
