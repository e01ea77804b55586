package writemixed_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/writemixed"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, writemixed.Kind{}, kindtest.Case{
		Body: `  duration_s = 0.5
  write {
    generator = "state_change"
    query     = query.write_state
    max_tries = 3
  }
  read {
    mix     = [query.fast]
    clients = 2
  }
  verify {
    query    = query.state_now
    fraction = 0.1
  }
`,
		SlowBody: `  duration_s = 0.5
  write {
    generator = "state_change"
    query     = query.write_state
  }
  read {
    mix = [query.slow]
  }
`,
	})
}
