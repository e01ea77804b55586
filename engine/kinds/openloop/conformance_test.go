package openloop_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/openloop"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, openloop.Kind{}, kindtest.Case{
		Body:     "  duration_s = 0.5\n  read {\n    clients = 2\n    rate    = [50, 100]\n    query   = query.fast\n  }\n",
		SlowBody: "  duration_s = 0.5\n  read {\n    clients = 1\n    rate    = 20\n    query   = query.slow\n  }\n",
	})
}
