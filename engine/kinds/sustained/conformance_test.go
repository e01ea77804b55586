package sustained_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/sustained"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, sustained.Kind{}, kindtest.Case{
		Body:     "  duration_s = 0.5\n  window_s   = 0.25\n  clients    = 2\n  read {\n    query = query.fast\n  }\n",
		SlowBody: "  duration_s = 0.5\n  clients    = 1\n  read {\n    query = query.slow\n  }\n",
	})
}
