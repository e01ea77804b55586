package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// Outcomes of one metric of one point under the statistical method.
const (
	OutRegression  = "REGRESSION"
	OutImprovement = "improvement"
	OutSmall       = "within threshold"      // significant, but not shown to be larger than the threshold
	OutNoChange    = "no significant change" // the reps do not show a difference
	OutUndecided   = "too few reps"          // no outcome of the test could be significant
	// OutNoisy is a metric that moved while the machine's noise differed
	// between the runs beyond the bound: cannot decide, with the reason.
	OutNoisy = "cannot decide (noise)"
)

// MetricVerdict is the statistical judgement of one metric of one point. The
// unit of evidence is the rep: Old and New hold one value per rep, and
// the test asks whether NEW's reps differ from OLD's more than reps of
// one run differ among themselves. A change is a regression (or an
// improvement) when it is significant and its whole confidence interval
// lies beyond the threshold: shown to be larger than the threshold, not
// merely estimated so, which keeps a noisy metric whose estimate lands
// just past the threshold from failing a gate.
type MetricVerdict struct {
	What   string // the point, as Key.String
	Metric string // KindP50, KindP99 or KindThroughput
	Old    []float64
	New    []float64
	// OldMedian and NewMedian are the medians of the reps.
	OldMedian, NewMedian float64
	// Ratio is the Hodges-Lehmann estimate of NEW/OLD (the median of all
	// pairwise ratios), Lo and Hi its confidence interval at 1-alpha
	// (Moses); infinite when the reps are too few to bound it.
	Ratio, Lo, Hi float64
	P             float64 // two-sided p-value of the Mann-Whitney U test
	Outcome       string
	// Reason says why an OutNoisy metric cannot be decided.
	Reason string
	// Order says how the point's reps of two variants of one run ran
	// (Variants); nil for two runs.
	Order *PointOrder

	key results.Key
}

// Pct is the estimated change in percent.
func (v MetricVerdict) Pct() float64 { return 100 * (v.Ratio - 1) }

// higherIsWorse reports the direction of a metric.
func higherIsWorse(metric string) bool { return metric != KindThroughput }

// judge fills the statistics and outcome of v from its reps.
func judge(v *MetricVerdict, alpha, thresholdPct float64) {
	v.OldMedian, v.NewMedian = stats.Median(v.Old), stats.Median(v.New)
	v.Ratio, v.Lo, v.Hi, v.P = math.NaN(), math.Inf(-1), math.Inf(1), 1
	if stats.MinP(len(v.Old), len(v.New)) > alpha {
		v.Outcome = OutUndecided
		return
	}
	// Compare on the log scale, where a ratio is a shift; a zero value
	// (no successful call in a rep) has no logarithm: too few to decide.
	lo, ln := logs(v.Old), logs(v.New)
	if lo == nil || ln == nil {
		v.Outcome = OutUndecided
		return
	}
	mw, err := stats.MannWhitneyU(lo, ln)
	if err != nil {
		v.Outcome = OutUndecided
		return
	}
	sh, _ := stats.HodgesLehmann(lo, ln, 1-alpha)
	v.P, v.Ratio, v.Lo, v.Hi = mw.P, math.Exp(sh.Estimate), math.Exp(sh.Lo), math.Exp(sh.Hi)
	decide(v, mw.P, alpha, thresholdPct)
}

func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) {
			return nil
		}
		out[i] = math.Log(x)
	}
	return out
}

// compareReps judges p50, p99 and throughput of every point of OLD's
// raw.csv that NEW's raw.csv has too. A rep measured twice (a resumed
// run) counts once, its last measurement.
func compareReps(verdict *Verdict, oldRun, newRun *results.Run) error {
	if !oldRun.Has(results.RawFile) || !newRun.Has(results.RawFile) {
		verdict.Notes = append(verdict.Notes, "no raw.csv on both sides: without per-rep values no change can be decided")
		return nil
	}
	oldRaw, newRaw := oldRun.Raw, newRun.Raw
	type repKey struct {
		results.Key
		rep int
	}
	group := func(rows []results.Row) (map[results.Key][]results.Row, []results.Key) {
		by := map[results.Key][]results.Row{}
		var order []results.Key
		for _, r := range results.LastPerKey(rows, func(r results.Row) repKey { return repKey{r.Key(), r.Rep} }) {
			if r.Op == results.OpCeiling || !verdict.keep(r.Key()) {
				continue
			}
			k := r.Key()
			if _, ok := by[k]; !ok {
				order = append(order, k)
			}
			by[k] = append(by[k], r)
		}
		return by, order
	}
	oldBy, order := group(oldRaw)
	newBy, _ := group(newRaw)
	for _, k := range order {
		nr, ok := newBy[k]
		if !ok {
			continue // missing from NEW: a finding of compareRows
		}
		or := oldBy[k]
		for _, m := range repMetrics {
			v := MetricVerdict{What: k.String(), Metric: m.kind, key: k, Old: values(or, m.of), New: values(nr, m.of)}
			if rv := verdict.RunVariation; rv != nil && rv.Estimates[m.kind] > 0 {
				sd, df := rv.sdFor(k, m.kind)
				judgeRuns(&v, verdict.Alpha, verdict.ThresholdPct, sd, df)
			} else {
				judge(&v, verdict.Alpha, verdict.ThresholdPct)
			}
			verdict.Verdicts = append(verdict.Verdicts, v)
		}
	}
	if err := judgeNoise(verdict, oldRun, newRun); err != nil {
		return err
	}
	for i := range verdict.Verdicts {
		if v := &verdict.Verdicts[i]; v.Outcome == OutRegression {
			verdict.Findings = append(verdict.Findings, Finding{Kind: v.Metric, What: v.What, Old: v.OldMedian, New: v.NewMedian, Pct: v.Pct(), Stat: v})
		}
	}
	return nil
}

// judgeNoise sets both runs' noise on the report and makes every metric
// that moved inconclusive where the machine's noise during its scenario
// (or, without rows for it, the whole run) differed beyond the bound,
// unless forced.
func judgeNoise(verdict *Verdict, oldRun, newRun *results.Run) error {
	oldRows, newRows := oldRun.Noise, newRun.Noise
	if !oldRun.Has(results.NoiseFile) || !newRun.Has(results.NoiseFile) {
		verdict.Notes = append(verdict.Notes, "no noise.csv on both sides: the machine's noise during the runs is unknown, and not weighed")
		if oldRun.Has(results.NoiseFile) {
			verdict.NoiseOld = results.SummarizeNoise(oldRows, nil)
		}
		if newRun.Has(results.NoiseFile) {
			verdict.NoiseNew = results.SummarizeNoise(newRows, nil)
		}
		return nil
	}
	verdict.NoiseOld, verdict.NoiseNew = results.SummarizeNoise(oldRows, nil), results.SummarizeNoise(newRows, nil)
	verdict.NoiseReason = noiseDiffers(verdict.NoiseOld, verdict.NoiseNew, verdict.NoiseBoundPct)
	forced := map[string]bool{}
	for i := range verdict.Verdicts {
		v := &verdict.Verdicts[i]
		if v.Outcome != OutRegression && v.Outcome != OutImprovement {
			continue
		}
		of := func(r results.NoiseRow) bool {
			return r.Scenario == v.key.Scenario && r.Backend == v.key.Backend && r.Scale == v.key.Scale
		}
		o, n := results.SummarizeNoise(oldRows, of), results.SummarizeNoise(newRows, of)
		if o.Rows == 0 || n.Rows == 0 {
			o, n = verdict.NoiseOld, verdict.NoiseNew
		}
		why := noiseDiffers(o, n, verdict.NoiseBoundPct)
		switch {
		case why == "":
		case verdict.force:
			if !forced[v.key.Scenario] {
				forced[v.key.Scenario] = true
				verdict.Notes = append(verdict.Notes, fmt.Sprintf("%s: %s; judged anyway (-force)", v.key.Scenario, why))
			}
		default:
			v.Outcome, v.Reason = OutNoisy, why
		}
	}
	return nil
}

// writeNoise prints both runs' noise, and why it differs when it does.
func writeNoise(b *strings.Builder, verdict Verdict) {
	if verdict.NoiseOld.Rows == 0 && verdict.NoiseNew.Rows == 0 {
		return
	}
	fmt.Fprintf(b, "machine noise OLD: %s\nmachine noise NEW: %s\n", verdict.NoiseOld, verdict.NoiseNew)
	if verdict.NoiseReason != "" {
		fmt.Fprintf(b, "the machine's noise differs: %s (bound %s points)\n", verdict.NoiseReason, strconv.FormatFloat(verdict.NoiseBoundPct, 'f', -1, 64))
	}
}

// writeVerdicts prints one line per metric of each point.
func writeVerdicts(b *strings.Builder, vs []MetricVerdict) {
	if len(vs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	last := ""
	for _, v := range vs {
		if v.What != last {
			// No tab: the point's name does not widen the columns.
			order := ""
			if v.Order != nil {
				order = "; " + v.Order.label()
			}
			fmt.Fprintf(tw, "%s (reps %d -> %d%s)\n", v.What, len(v.Old), len(v.New), order)
			last = v.What
		}
		name, unit, f := "p50", " ms", report.FormatMs
		switch v.Metric {
		case KindP99:
			name = "p99"
		case KindThroughput:
			name, unit, f = "ops/s", "", report.FormatRate
		}
		change, ci, p := "", "", ""
		if v.Outcome != OutUndecided {
			change = fmt.Sprintf("%+.1f%%", v.Pct())
			ci = "95% CI unbounded"
			if !math.IsInf(v.Lo, 0) && !math.IsInf(v.Hi, 0) && v.Lo > 0 {
				ci = fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*(v.Lo-1), 100*(v.Hi-1))
			}
			p = fmt.Sprintf("p=%.3f", v.P)
		}
		outcome := v.Outcome
		if v.Reason != "" {
			outcome += ": " + v.Reason
		}
		fmt.Fprintf(tw, "  %s\t%s -> %s%s\t%s\t%s\t%s\t%s\n", name, f(v.OldMedian), f(v.NewMedian), unit, change, ci, p, outcome)
	}
	tw.Flush()
}

// writeTally prints how many metrics fell into each outcome, and says
// plainly when nothing could be decided.
func writeTally(b *strings.Builder, vs []MetricVerdict, alpha float64) {
	n := map[string]int{}
	minOld, minNew := math.MaxInt, math.MaxInt
	for _, v := range vs {
		n[v.Outcome]++
		minOld, minNew = min(minOld, len(v.Old)), min(minNew, len(v.New))
	}
	if len(vs) == 0 {
		return
	}
	fmt.Fprintf(b, "%d metrics: %d regressions, %d improvements, %d within threshold, %d no significant change, %d too few reps, %d cannot decide (noise)\n",
		len(vs), n[OutRegression], n[OutImprovement], n[OutSmall], n[OutNoChange], n[OutUndecided], n[OutNoisy])
	if n[OutUndecided] > 0 {
		fmt.Fprintf(b, "cannot decide %d metrics: too few reps (OLD has %d, NEW %d at the fewest; at alpha %s the test needs at least %s)\n",
			n[OutUndecided], minOld, minNew, strconv.FormatFloat(alpha, 'f', -1, 64), repsNeeded(alpha))
	}
	if n[OutNoisy] > 0 {
		fmt.Fprintf(b, "cannot decide %d metrics that moved: the machine's noise differed between the runs (-force judges them anyway)\n", n[OutNoisy])
	}
}

// repsNeeded says the fewest equal rep counts on both sides with which
// the test can reach alpha.
func repsNeeded(alpha float64) string {
	for n := 1; n <= 50; n++ {
		if stats.MinP(n, n) <= alpha {
			return fmt.Sprintf("%d and %d", n, n)
		}
	}
	return "more than 50 on each side"
}
