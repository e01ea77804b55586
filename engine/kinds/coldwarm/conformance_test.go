package coldwarm_test

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/kinds/coldwarm"
	"github.com/mentat-spec/mentat-spec/engine/kindtest"
)

func TestConformance(t *testing.T) {
	kindtest.Run(t, coldwarm.Kind{}, kindtest.Case{
		Body:     "  warm_calls = 3\n  read {\n    mix = [query.fast]\n  }\n",
		SlowBody: "  warm_calls = 1\n  read {\n    mix = [query.slow]\n  }\n",
	})
}
