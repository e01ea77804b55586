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
// held), what moved between the two from the probes' own rows, then
// what the database said during each of the two probes
// (logs/capacity-evidence.csv), ranked by evidence.Rank. A run without
// per-probe evidence (one before it) falls back on the database's
// evidence over the whole search, which is one point of its scenario.

// breakingPoint is a search's edge as probed.
type breakingPoint struct {
	within, past CapacityProbeRow
	reasons      []string // the probes' own, then the database's ranked
	recorded     bool     // both probes have the database's evidence
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
func breakOf(c CapacityRow, probes []CapacityProbeRow, ev []ProbeEvidenceRow) (breakingPoint, bool) {
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
	bp := breakingPoint{within: *within, past: *past, reasons: probeReasons(*within, *past)}
	var db []string
	db, bp.recorded = evidenceReasons(ev, *within, *past)
	bp.reasons = append(bp.reasons, db...)
	return bp, true
}

// evidenceReasons ranks what the database said during the probe past
// the capacity against the probe within it; recorded is false when
// either probe has no evidence on record, and a recorded pair where
// nothing moved says so.
func evidenceReasons(ev []ProbeEvidenceRow, within, past CapacityProbeRow) (reasons []string, recorded bool) {
	a, b := probeSide(ev, within), probeSide(ev, past)
	if len(a.Facts)+len(a.Splits) == 0 || len(b.Facts)+len(b.Splits) == 0 {
		return nil, false
	}
	reasons = evidence.Rank(a, b, "")
	if len(reasons) == 0 {
		reasons = []string{"the database's evidence: " + evidence.NoEvidenceMoved}
	}
	return reasons, true
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
// its probes and the database's evidence during the two: "" when it
// never broke past a level that held.
func breakLine(c CapacityRow, probes []CapacityProbeRow, ev []ProbeEvidenceRow) string {
	bp, ok := breakOf(c, probes, ev)
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
// ranked, the probes' reasons first, then the database's evidence of
// the two probes (of the whole search in a run without it).
func whyBroke(r *results.Run, c *Searches) report.Table {
	t := report.Table{Head: []string{"backend", "scale", "scenario", "held at", "broke at", "rank", "what moved"},
		Right: []bool{false, false, false, true, true, true, false}}
	l := evidence.Of(r)
	for _, row := range c.Rows {
		bp, ok := breakOf(row, probesOf(c.Probes, row), c.Evidence)
		if !ok {
			continue
		}
		reasons := bp.reasons
		if !bp.recorded {
			// A run before per-probe evidence: the search's, as one point.
			if sd, err := evidence.PointSide(l, row.Scenario, row.Backend, row.Scale, 1, r.Dir); err == nil && len(sd.Splits) > 0 {
				for _, s := range evidence.OwnReasons(sd) {
					reasons = append(reasons, "over the whole search: "+s)
				}
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
