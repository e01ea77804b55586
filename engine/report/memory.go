package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// memoryPhases is the order of memory.csv's phases in the summary.
var memoryPhases = []string{results.PhaseTruth, results.PhaseLoad, results.PhaseMeasure, results.PhaseChecks, results.PhaseCrossCheck, results.PhaseReports}

// writeMemory writes the engine's peak memory by phase and scale: the
// process's resident peak over the phase's stretches and backends, and in
// parentheses the Go runtime's (the engine's own; the rest is the
// embedded databases' caches and the C libraries).
func writeMemory(b *bytes.Buffer, rows []results.MemoryRow, rank map[string]int) error {
	if len(rows) == 0 {
		return nil
	}
	type peak struct{ rss, goHeap int64 }
	peaks := map[[2]string]peak{}
	var scales []string
	processOnly, runWide := false, false
	for _, r := range rows {
		runWide = runWide || r.Scale == results.MemoryAll
		if r.Scale != results.MemoryAll && !slices.Contains(scales, r.Scale) {
			scales = append(scales, r.Scale)
		}
		k := [2]string{r.Phase, r.Scale}
		p := peaks[k]
		peaks[k] = peak{max(p.rss, r.PeakRSS), max(p.goHeap, r.PeakGo)}
		processOnly = processOnly || r.PeakOf == results.PeakOfProcess
	}
	slices.SortStableFunc(scales, func(x, y string) int { return rankOf(rank, x) - rankOf(rank, y) })
	b.WriteString("## Engine memory by phase\n\n")
	b.WriteString("Peak resident set of the engine's process (memory.csv), the highest over the phase's backends; in parentheses the Go runtime's own peak. The difference is the embedded databases (SQLite's page cache, DuckDB's buffer pool) and C libraries.")
	if processOnly {
		b.WriteString(" Some peaks could not be reset at the phase's start and are the process's peak so far (peak_of = process).")
	}
	cols := slices.Clone(scales)
	head := strings.Join(scales, " | ")
	if runWide { // the reports' row, once a later report reads it
		cols = append(cols, results.MemoryAll)
		head += " | the run"
	}
	b.WriteString("\n\n| phase | " + head + " |\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	for _, ph := range memoryPhases {
		cells := make([]string, 0, len(cols))
		any := false
		for _, s := range cols {
			p, ok := peaks[[2]string{ph, s}]
			if !ok {
				cells = append(cells, "")
				continue
			}
			any = true
			cells = append(cells, fmt.Sprintf("%s (%s)", results.HumanBytes(p.rss), results.HumanBytes(p.goHeap)))
		}
		if any {
			b.WriteString("| " + ph + " | " + strings.Join(cells, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
	return nil
}

// rankOf is a scale's rank, unknown scales last.
func rankOf(rank map[string]int, scale string) int {
	if r, ok := rank[scale]; ok {
		return r
	}
	return len(rank) + 1
}
