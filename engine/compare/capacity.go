package compare

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// KindCapacity is a capacity that fell: NEW's interval lies wholly below
// OLD's, by more than the threshold.
const KindCapacity = "capacity"

// compareCapacity compares the capacity.csv rows of two runs as metrics
// with their intervals: a capacity fell only when NEW's 95% interval lies
// wholly below OLD's and its estimate dropped by more than the threshold;
// estimates apart by more than the threshold whose intervals overlap
// cannot be decided and are noted; a search of OLD missing from NEW is
// missing.
func compareCapacity(rep *Verdict, oldRun, newRun *results.Run) error {
	oldRows, newRows := oldRun.Capacity, newRun.Capacity
	type key struct {
		sc, be, scale, op string
		clients           int
	}
	kOf := func(c results.CapacityRow) key { return key{c.Scenario, c.Backend, c.Scale, c.Op, c.Clients} }
	news := map[key]results.CapacityRow{}
	for _, n := range newRows {
		news[kOf(n)] = n
	}
	for _, o := range oldRows {
		what := fmt.Sprintf("%s %s %s clients=%d %s", o.Scenario, o.Backend, o.Scale, o.Clients, o.Op)
		n, ok := news[kOf(o)]
		if !ok {
			rep.Findings = append(rep.Findings, Finding{Kind: KindMissing, What: what + " (capacity)"})
			continue
		}
		rep.Compared++
		if math.IsNaN(o.Capacity) || math.IsNaN(n.Capacity) {
			// A search that could not decide its capacity gives nothing to
			// compare: not a pass.
			side := "NEW"
			switch {
			case math.IsNaN(o.Capacity) && math.IsNaN(n.Capacity):
				side = "OLD and NEW"
			case math.IsNaN(o.Capacity):
				side = "OLD"
			}
			rep.UndecidedCapacity++
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: capacity CANNOT BE DECIDED: the search of %s found no capacity (limited by %s)", what, side, undecidedLimit(o, n)))
			continue
		}
		if o.Capacity <= 0 {
			continue
		}
		change := pct(o.Capacity, n.Capacity)
		intervals := fmt.Sprintf(" (95%% intervals %s -> %s)", capInterval(o.Low, o.High), capInterval(n.Low, n.High))
		switch {
		case math.Abs(change) <= rep.ThresholdPct:
		case change < 0 && n.High < o.Low:
			rep.Findings = append(rep.Findings, Finding{Kind: KindCapacity, What: what + intervals, Old: o.Capacity, New: n.Capacity, Pct: change})
		case n.Low > o.High && !math.IsInf(o.High, 1):
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: capacity rose %s -> %s ops/s (%+.1f%%)%s", what, report.FormatRate(o.Capacity), report.FormatRate(n.Capacity), change, intervals))
		default:
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: capacity %s -> %s ops/s (%+.1f%%) CANNOT BE DECIDED: the intervals overlap%s", what,
				report.FormatRate(o.Capacity), report.FormatRate(n.Capacity), change, intervals))
		}
	}
	return nil
}

// undecidedLimit is the limit of the side whose capacity is unknown.
func undecidedLimit(o, n results.CapacityRow) string {
	if math.IsNaN(n.Capacity) {
		return n.LimitedBy
	}
	return o.LimitedBy
}

// capacityFinding is a capacity finding's text after its point.
func capacityFinding(f Finding) string {
	return "capacity " + report.FormatRate(f.Old) + " -> " + report.FormatRate(f.New) + " ops/s (" + strconv.FormatFloat(f.Pct, 'f', 1, 64) + "%)"
}

func capInterval(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return report.FormatRate(lo) + " to ?"
	}
	return report.FormatRate(lo) + " to " + report.FormatRate(hi)
}
