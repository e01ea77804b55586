package report

import (
	"bytes"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// writeColdStarts states, for each cell with cold starts, what was
// restarted and whether the page cache was emptied (the last line of a
// cell and scenario wins: a rerun supersedes).
func writeColdStarts(b *bytes.Buffer, checks []results.CheckLine) {
	var lines []results.CheckLine
	for _, l := range checks {
		if l.Name == results.ColdStartCheck {
			lines = append(lines, l)
		}
	}
	lines = results.LastPerKey(lines, func(l results.CheckLine) [3]string { return [3]string{l.Scenario, l.Backend, l.Scale} })
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Cold starts\n\n")
	t := table{head: []string{"backend", "scale", "scenario", "cold", "what was done"}, right: make([]bool, 5)}
	for _, l := range lines {
		cold, what := "yes", l.Detail
		if l.Status != results.Pass {
			cold = "no: cold calls not measured"
			what = strings.TrimPrefix(l.Detail, "cold calls not measured: ")
		}
		t.rows = append(t.rows, []string{l.Backend, l.Scale, l.Scenario, cold, what})
	}
	t.write(b)
	b.WriteString("\n")
}
