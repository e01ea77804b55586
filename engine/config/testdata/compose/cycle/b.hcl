include "a" {
  path = "a.hcl" # ERROR: Include cycle
}
