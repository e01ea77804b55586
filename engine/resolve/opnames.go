package resolve

import (
	"sort"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// OpNames lists, sorted, every op a timings row of the spec can have that
// a threshold may name: the streams' read and write, a stream's total,
// the reopening of a cold store, each declared operation, and each query
// with its cold_ and warm_ forms (cold_warm's rows). With scenario set,
// the operations are that scenario's only.
func OpNames(s *config.Spec, scenario string) []string {
	seen := map[string]bool{results.OpRead: true, results.OpWrite: true, measure.OpTotal: true, results.OpOpen: true}
	for _, q := range s.Queries {
		seen[q.Name], seen["cold_"+q.Name], seen["warm_"+q.Name] = true, true, true
	}
	for _, sc := range s.Scenarios {
		if scenario != "" && sc.Name != scenario {
			continue
		}
		if od, ok := sc.Def.(kind.Operationer); ok {
			for _, o := range od.Operations() {
				seen[o.Name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
