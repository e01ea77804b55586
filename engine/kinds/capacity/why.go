package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Why a search broke where it did: the first probe past the capacity
// (the lowest rate, or fewest clients, above it that broke the service
// level) against the last within it (the highest at or below it that
// held), what moved between the two from the probes' own rows, then the
// database's evidence over the whole search. The search is one point of
// its scenario, so the database's counters and wait events are the
// search's, not each probe's.

// breakingPoint is a search's edge as probed.
type breakingPoint struct {
	within, past CapacityProbeRow
	reasons      []string
}

// probeX is where a probe stands on the search's axis: its offered
// rate, or its clients for a clients search.
func probeX(p CapacityProbeRow, unit string) float64 {
	if unit == UnitClients {
		return float64(p.Clients)
	}
	return p.Rate
}

// breakOf finds c's edge among its probes; false when the search never
// broke past a level that held (or held nowhere).
func breakOf(c CapacityRow, probes []CapacityProbeRow) (breakingPoint, bool) {
	if math.IsNaN(c.Capacity) {
		return breakingPoint{}, false
	}
	var within, past *CapacityProbeRow
	for i := range probes {
		p := &probes[i]
		x := probeX(*p, c.Unit)
		switch {
		case p.Held && x <= c.Capacity && (within == nil || x > probeX(*within, c.Unit)):
			within = p
		case !p.Held && x > c.Capacity && (past == nil || x < probeX(*past, c.Unit)):
			past = p
		}
	}
	if within == nil || past == nil {
		return breakingPoint{}, false
	}
	return breakingPoint{within: *within, past: *past, reasons: probeReasons(*within, *past)}, true
}

// probeReasons are what moved from the probe that held to the one that
// broke: the bound it broke, then latency (the median moving with the
// tail says every call queued), the achieved rate, late, dropped and
// failed calls.
func probeReasons(a, b CapacityProbeRow) []string {
	var out []string
	if b.Failed != "" {
		out = append(out, "broke "+strings.ReplaceAll(b.Failed, "+", ", "))
	}
	moved := func(x, y, rel float64) bool {
		return !math.IsNaN(x) && !math.IsNaN(y) && math.Abs(y-x) > rel*math.Max(math.Abs(x), 1e-9)
	}
	if moved(a.P50Ms, b.P50Ms, 0.25) {
		out = append(out, fmt.Sprintf("p50 %s -> %s ms: every call waits longer, a queue", report.FormatMs(a.P50Ms), report.FormatMs(b.P50Ms)))
	}
	if moved(a.P99Ms, b.P99Ms, 0.25) {
		out = append(out, fmt.Sprintf("p99 %s -> %s ms", report.FormatMs(a.P99Ms), report.FormatMs(b.P99Ms)))
	}
	pts := func(name string, x, y float64) {
		if !math.IsNaN(x) && !math.IsNaN(y) && math.Abs(y-x) >= 1 {
			out = append(out, fmt.Sprintf("%s %.0f%% -> %.0f%%", name, x, y))
		}
	}
	pts("achieved share of the offered rate", a.AchievedPct, b.AchievedPct)
	pts("late calls", a.LatePct, b.LatePct)
	pts("failed calls", a.ErrorPct, b.ErrorPct)
	if b.Dropped > a.Dropped {
		out = append(out, fmt.Sprintf("dropped calls %d -> %d", a.Dropped, b.Dropped))
	}
	return out
}

// breakLine says in one line what moved where the search broke, from
// its probes alone (the database's evidence over the search is written
// after it, and read by the reports): "" when it never broke past a
// level that held.
func breakLine(c CapacityRow, probes []CapacityProbeRow) string {
	bp, ok := breakOf(c, probes)
	if !ok {
		return ""
	}
	reasons := bp.reasons
	if len(reasons) == 0 {
		reasons = []string{evidence.NoEvidenceMoved}
	}
	return fmt.Sprintf("capacity broke between %s and %s: %s", probeAt(bp.within, c.Unit), probeAt(bp.past, c.Unit), strings.Join(reasons, "; "))
}

// probeAt names a probe by where it stands on the search's axis.
func probeAt(p CapacityProbeRow, unit string) string {
	if unit == UnitClients {
		return fmt.Sprintf("%d clients", p.Clients)
	}
	return report.FormatRate(p.Rate) + " ops/s"
}

// whyBroke lists each search's breaking point of r: a row per reason,
// ranked, the probes' reasons first, then the search's evidence.
func whyBroke(r *results.Run, c *Searches) report.Table {
	t := report.Table{Head: []string{"backend", "scale", "scenario", "held at", "broke at", "rank", "what moved"},
		Right: []bool{false, false, false, true, true, true, false}}
	l := evidence.Of(r)
	for _, row := range c.Rows {
		bp, ok := breakOf(row, probesOf(c.Probes, row))
		if !ok {
			continue
		}
		reasons := bp.reasons
		if sd, err := evidence.PointSide(l, row.Scenario, row.Backend, row.Scale, 1, r.Dir); err == nil && len(sd.Splits) > 0 {
			for _, s := range evidence.OwnReasons(sd) {
				reasons = append(reasons, "over the whole search: "+s)
			}
		}
		if len(reasons) == 0 {
			reasons = []string{evidence.NoEvidenceMoved}
		}
		for i, s := range reasons {
			t.Rows = append(t.Rows, []string{row.Backend, row.Scale, row.Scenario, probeAt(bp.within, row.Unit), probeAt(bp.past, row.Unit), fmt.Sprint(i + 1), s})
		}
	}
	return t
}
