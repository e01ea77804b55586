package capacity

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func init() {
	compare.RegisterRule(compare.Rule{Name: OutputName, Compare: compareCapacity, UndecidedWhy: "a capacity search found no capacity"})
}

// KindCapacity is a capacity that fell: NEW's interval lies wholly below
// OLD's, by more than the threshold.
const KindCapacity = "capacity"

// compareCapacity compares the capacity.csv rows of two runs as metrics
// with their intervals: a capacity fell only when NEW's 95% interval lies
// wholly below OLD's and its estimate dropped by more than the threshold;
// estimates apart by more than the threshold whose intervals overlap
// cannot be decided and are noted; a search of OLD missing from NEW is
// missing.
func compareCapacity(verdict *compare.Verdict, oldRun, newRun *results.Run) error {
	oldRows, newRows := Of(oldRun).Rows, Of(newRun).Rows
	type key struct {
		sc, be, scale, op string
		clients           int
	}
	kOf := func(c CapacityRow) key { return key{c.Scenario, c.Backend, c.Scale, c.Op, c.Clients} }
	news := map[key]CapacityRow{}
	for _, n := range newRows {
		news[kOf(n)] = n
	}
	for _, o := range oldRows {
		what := fmt.Sprintf("%s %s %s clients=%d %s", o.Scenario, o.Backend, o.Scale, o.Clients, o.Op)
		n, ok := news[kOf(o)]
		if !ok {
			verdict.Findings = append(verdict.Findings, compare.Finding{Kind: compare.KindMissing, What: what + " (capacity)"})
			continue
		}
		verdict.Compared++
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
			verdict.Undecide(OutputName)
			verdict.Notes = append(verdict.Notes, fmt.Sprintf("%s: capacity CANNOT BE DECIDED: the search of %s found no capacity (limited by %s)", what, side, undecidedLimit(o, n)))
			continue
		}
		if o.Capacity <= 0 {
			continue
		}
		change := 100 * (n.Capacity - o.Capacity) / o.Capacity
		intervals := fmt.Sprintf(" (95%% intervals %s -> %s)", capInterval(o.Low, o.High), capInterval(n.Low, n.High))
		switch {
		case math.Abs(change) <= verdict.ThresholdPct:
		case change < 0 && n.High < o.Low:
			verdict.Findings = append(verdict.Findings, compare.Finding{Kind: KindCapacity, What: what + intervals, Old: o.Capacity, New: n.Capacity, Pct: change,
				Text: capacityFinding(o.Capacity, n.Capacity, change)})
		case n.Low > o.High && !math.IsInf(o.High, 1):
			verdict.Notes = append(verdict.Notes, fmt.Sprintf("%s: capacity rose %s -> %s ops/s (%+.1f%%)%s", what, report.FormatRate(o.Capacity), report.FormatRate(n.Capacity), change, intervals))
		default:
			verdict.Notes = append(verdict.Notes, fmt.Sprintf("%s: capacity %s -> %s ops/s (%+.1f%%) CANNOT BE DECIDED: the intervals overlap%s", what,
				report.FormatRate(o.Capacity), report.FormatRate(n.Capacity), change, intervals))
		}
	}
	return nil
}

// undecidedLimit is the limit of the side whose capacity is unknown.
func undecidedLimit(o, n CapacityRow) string {
	if math.IsNaN(n.Capacity) {
		return n.LimitedBy
	}
	return o.LimitedBy
}

// capacityFinding is a capacity finding's text after its point.
func capacityFinding(old, new, pct float64) string {
	return "capacity " + report.FormatRate(old) + " -> " + report.FormatRate(new) + " ops/s (" + strconv.FormatFloat(pct, 'f', 1, 64) + "%)"
}

func capInterval(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return report.FormatRate(lo) + " to ?"
	}
	return report.FormatRate(lo) + " to " + report.FormatRate(hi)
}
