package closedloop_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, closedloop.Kind{}, kindtest.Case{
		Body:     "  clients = [1, 2]\n  read {\n    query = query.fast\n  }\n",
		SlowBody: "  read {\n    query = query.slow\n  }\n",
	})
}

// A stream of operations, a read and a write, passes the same suite.
func TestConformanceOperations(t *testing.T) {
	kindtest.Run(t, closedloop.Kind{}, kindtest.Case{
		Body: `  clients = [2]
  read {
    operation "lookup" {
      weight = 3
      query  = query.fast
    }
    operation "change" {
      weight = 1
      write  = "state_change"
      query  = query.write_state
    }
  }
`,
		SlowBody: `  read {
    operation "lookup" {
      weight = 1
      query  = query.fast
    }
    operation "slow" {
      weight = 1
      query  = query.slow
    }
  }
`,
	})
}
