# Reaches the workload through spec_home() (MENTAT_SPEC_HOME in the test).
include "mentat" {
  path = "${spec_home()}/mentat"
}
