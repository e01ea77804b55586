package main

import (
	"fmt"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// allCallsFailed lists the timing rows whose every call failed (no call
// succeeded and some failed), each as one line naming the point and op:
// such a row is not a benchmark result, however well the rest went.
func allCallsFailed(rows []results.Row) []string {
	var out []string
	for _, r := range rows {
		if r.Count == 0 && r.Errors > 0 {
			out = append(out, fmt.Sprintf("scenario %s, backend %s, scale %s, %d client(s), op %s: all %d call(s) failed",
				r.Scenario, r.Backend, r.Scale, r.Clients, r.Op, r.Errors))
		}
	}
	return out
}
