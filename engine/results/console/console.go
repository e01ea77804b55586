// Package console prints a run's records as they are emitted: one line
// per timing, load, check, window and open-loop record, the live log of
// apply.
package console

import (
	"fmt"
	"io"
	"sync"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Printer prints one line per timing, load and check record (raw reps
// and sizes are only written to files).
type Printer struct {
	mu sync.Mutex
	w  io.Writer
}

// New prints to w.
func New(w io.Writer) *Printer { return &Printer{w: w} }

// Emit prints rec's line.
func (c *Printer) Emit(rec results.Record) error {
	var line string
	switch r := rec.(type) {
	case results.Timing:
		line = timingLine(results.Row(r))
	case results.LoadRow:
		if r.Ceiling {
			line = fmt.Sprintf("%s/%s: load cap hit after %s datoms in %.2fs", r.Scale, r.Backend, results.Thousands(r.NDatoms), r.WallS)
		} else {
			line = fmt.Sprintf("%s/%s: loaded %s datoms in %.2fs (%s datoms/s)", r.Scale, r.Backend, results.Thousands(r.NDatoms), r.WallS, results.Thousands(int64(r.DatomsPerS)))
		}
	case results.CheckLine:
		line = fmt.Sprintf("%s %s/%s %s %s: %s", r.Status, r.Scale, r.Backend, r.Scenario, r.Name, r.Detail)
	case results.WindowRow, results.OpenLoopRow:
		line = timedLine(rec)
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := fmt.Fprintln(c.w, line)
	return err
}

func timingLine(r results.Row) string {
	name := r.Scale + "/" + r.Backend
	switch {
	case r.Op == results.OpCeiling:
		return fmt.Sprintf("%s %-16s ceiling: first call took %.3f ms, scenario skipped", name, r.Scenario, r.P50Ms)
	case results.IsColdWarm(r.Op):
		return fmt.Sprintf("%s %-16s %-14s p50 %8.3f ms  n %d", name, r.Scenario, r.Op, r.P50Ms, r.Count)
	}
	return fmt.Sprintf("%s %-16s %-5s clients %-3d p50 %8.3f ms  p99 %8.3f ms  %10.1f ops/s  errors %d",
		name, r.Scenario, r.Op, r.Clients, r.P50Ms, r.P99Ms, r.Throughput, r.Errors)
}

// timedLine is the console line of a window or an open-loop row.
func timedLine(rec results.Record) string {
	switch r := rec.(type) {
	case results.WindowRow:
		return fmt.Sprintf("%s/%s %-16s %-5s window %-3d %6.0fs  p50 %8.3f ms  p99 %8.3f ms  %10.1f ops/s  errors %d",
			r.Scale, r.Backend, r.Scenario, r.Op, r.Window, r.EndS, r.P50Ms, r.P99Ms, r.Throughput, r.Errors)
	case results.OpenLoopRow:
		return fmt.Sprintf("%s/%s %-16s %-5s rate %.1f/s: %.1f ops/s  late %d  dropped %d  errors %d",
			r.Scale, r.Backend, r.Scenario, r.Op, r.Rate, r.Throughput, r.Late, r.Dropped, r.Errors)
	}
	return ""
}
