package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// consoleReasons is how many of a crossed threshold's reasons the console
// shows; summary.md and report.html show them all.
const consoleReasons = 3

// printThresholdWhy prints, under apply's count of crossed thresholds,
// why each was crossed, read back from the results directory: the run is
// over and its evidence on disk. A directory that cannot be read prints
// nothing; its reports say the same.
func printThresholdWhy(w io.Writer, dir string) {
	run, err := results.Load(dir)
	if err != nil {
		return
	}
	whys := evidence.ThresholdWhy(run)
	for _, c := range run.Checks {
		why, ok := whys[c]
		if !ok {
			continue
		}
		rs := why.Reasons
		if len(rs) == 0 {
			rs = []string{report.NoEvidenceMoved}
		}
		more := ""
		if len(rs) > consoleReasons {
			rs, more = rs[:consoleReasons], fmt.Sprintf("; %d more in summary.md", len(why.Reasons)-consoleReasons)
		}
		fmt.Fprintf(w, "  why %s %s %s %s, against %s: %s%s\n", c.Scenario, c.Backend, c.Scale, c.Name, why.Against, strings.Join(rs, "; "), more)
	}
}
