package results

import (
	"bytes"
	"strings"
)

// ColdStartCheck names the checks.txt line of each cold_warm point: PASS
// with what was restarted and how the OS page cache was emptied of the
// store, or SKIP with why its calls are not cold (its cold_ rows are then
// not written).
const ColdStartCheck = "cold start"

// CrossBackendSuffix ends the name of a cross-backend check line: the
// check's answers compared between the backends that ran it at a scale.
const CrossBackendSuffix = " (cross-backend)"

// writeColdStarts states, for each cell with cold starts, what was
// restarted and whether the page cache was emptied (the last line of a
// cell and scenario wins: a rerun supersedes).
func writeColdStarts(b *bytes.Buffer, checks []CheckLine) {
	var lines []CheckLine
	for _, l := range checks {
		if l.Name == ColdStartCheck {
			lines = append(lines, l)
		}
	}
	lines = lastPerKey(lines, func(l CheckLine) [3]string { return [3]string{l.Scenario, l.Backend, l.Scale} })
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Cold starts\n\n")
	t := table{head: []string{"backend", "scale", "scenario", "cold", "what was done"}, right: make([]bool, 5)}
	for _, l := range lines {
		cold, what := "yes", l.Detail
		if l.Status != Pass {
			cold = "no: cold calls not measured"
			what = strings.TrimPrefix(l.Detail, "cold calls not measured: ")
		}
		t.rows = append(t.rows, []string{l.Backend, l.Scale, l.Scenario, cold, what})
	}
	t.write(b)
	b.WriteString("\n")
}
