package capacity_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/capacity"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, capacity.Kind{}, kindtest.Case{
		Body: `  start_rate = 10
  max_rate   = 40
  max_probes = 4
  service_level {
    max_ms = 250
  }
  read {
    clients = 2
    query   = query.fast
  }
`,
		SlowBody: `  start_rate = 10
  min_rate   = 5
  max_probes = 3
  service_level {
    max_ms = 250
  }
  read {
    clients = 1
    query   = query.slow
  }
`,
	})
}

// The closed-loop variant: the most clients, here bounded to two.
func TestConformanceClients(t *testing.T) {
	kindtest.Run(t, capacity.Kind{}, kindtest.Case{
		Body: `  search      = "clients"
  max_clients = 2
  max_probes  = 3
  service_level {
    max_ms = 250
  }
  read {
    query = query.fast
  }
`,
		SlowBody: `  search      = "clients"
  max_clients = 2
  max_probes  = 2
  service_level {
    max_ms = 250
  }
  read {
    query = query.slow
  }
`,
	})
}
