package compare

import (
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// RunVariation is how much runs of one spec on one machine differ that
// the reps inside a run do not show: reps share their run's freshly
// loaded store, its memory layout and the machine's state that minute,
// so a test over reps alone reads a run-level difference as a change.
// SD is, per metric kind, the standard deviation of a run's mean of the
// log values between runs; a change must stand out from it.
type RunVariation struct {
	// Source says where the estimate comes from, for the report.
	Source string
	SD     map[string]float64
	// Estimates counts the (point, pair) estimates pooled per metric.
	Estimates map[string]int
	// PointSD is the same estimate for each point alone, over the pairs
	// of calibration runs. One point can vary between runs far more than
	// the pool says (a 2 µs lookup whose p50 doubles with the run's
	// memory layout beside queries steady to 1%), so a point is judged
	// against the larger of the two.
	PointSD map[results.Key]map[string]float64
	// Runs is the number of calibration runs: a point's own estimate
	// rests on Runs-1 degrees of freedom (the mean over pairs of squared
	// differences is twice the runs' sample variance), the pool on that
	// times its points.
	Runs int
}

// sdFor is the between-run SD a metric of point k is judged against, and
// the degrees of freedom of its estimate.
func (rv *RunVariation) sdFor(k results.Key, kind string) (sd, df float64) {
	sd, df = rv.SD[kind], float64(max(rv.Runs-1, 1)*max(rv.Estimates[kind]/max(rv.pairs(), 1), 1))
	if p, ok := rv.PointSD[k][kind]; ok && p > sd {
		return p, float64(max(rv.Runs-1, 1))
	}
	return sd, df
}

// pairs is the number of pairs of calibration runs.
func (rv *RunVariation) pairs() int { return rv.Runs * (rv.Runs - 1) / 2 }

// Calibrate estimates the run-to-run variation from A/A runs: two or
// more results directories of the same spec on the same machine with
// nothing changed between them. Every pair of them gives, per point and
// metric, the squared difference of the runs' log means less what the
// reps' own spread explains (a method-of-moments estimate of twice the
// between-run variance); those are pooled per metric kind over points
// and pairs, and a negative pool is zero.
func Calibrate(dirs []string) (*RunVariation, error) {
	if len(dirs) < 2 {
		return nil, fmt.Errorf("calibration needs two or more A/A runs, got %d", len(dirs))
	}
	runs := make([]map[results.Key][]results.Row, len(dirs))
	loaded := make([]*results.Run, len(dirs))
	for i, d := range dirs {
		run, err := results.Load(d)
		if err == nil && !run.Has(results.RawFile) {
			err = fmt.Errorf("%s: %w", results.RawFile, fs.ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("calibration run %s: %w", d, err)
		}
		loaded[i] = run
		runs[i] = map[results.Key][]results.Row{}
		for _, r := range run.Raw {
			if r.Op != results.OpCeiling {
				runs[i][r.Key()] = append(runs[i][r.Key()], r)
			}
		}
		if i > 0 {
			diffs, _, err := Differences(loaded[0], run)
			if err != nil {
				return nil, err
			}
			if len(diffs) > 0 {
				return nil, fmt.Errorf("calibration runs %s and %s differ (%s %q -> %q and %d more): A/A runs must be of one spec and machine", dirs[0], d, diffs[0].Key, diffs[0].Old, diffs[0].New, len(diffs)-1)
			}
		}
	}
	sum := map[string]float64{}
	type pointKind struct {
		k    results.Key
		kind string
	}
	pointSum, pointN := map[pointKind]float64{}, map[pointKind]int{}
	rv := &RunVariation{SD: map[string]float64{}, Estimates: map[string]int{}, PointSD: map[results.Key]map[string]float64{},
		Runs: len(dirs), Source: fmt.Sprintf("%d A/A runs (%s)", len(dirs), strings.Join(dirs, ", "))}
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			for k, a := range runs[i] {
				b, ok := runs[j][k]
				if !ok {
					continue
				}
				for _, m := range repMetrics {
					if est, ok := betweenEstimate(values(a, m.of), values(b, m.of)); ok {
						sum[m.kind] += est
						rv.Estimates[m.kind]++
						pk := pointKind{k, m.kind}
						pointSum[pk] += est
						pointN[pk]++
					}
				}
			}
		}
	}
	for m, n := range rv.Estimates {
		rv.SD[m] = math.Sqrt(max(sum[m]/float64(n)/2, 0))
	}
	for pk, n := range pointN {
		if rv.PointSD[pk.k] == nil {
			rv.PointSD[pk.k] = map[string]float64{}
		}
		rv.PointSD[pk.k][pk.kind] = math.Sqrt(max(pointSum[pk]/float64(n)/2, 0))
	}
	if len(rv.Estimates) == 0 {
		return nil, fmt.Errorf("calibration runs %s share no point with two or more reps on each side", strings.Join(dirs, ", "))
	}
	return rv, nil
}

// repMetrics are the metrics judged from reps, with their value of a row.
var repMetrics = []struct {
	kind string
	of   func(results.Row) float64
}{
	{KindP50, func(r results.Row) float64 { return r.P50Ms }},
	{KindP99, func(r results.Row) float64 { return r.P99Ms }},
	{KindThroughput, func(r results.Row) float64 { return r.Throughput }},
}

func values(rows []results.Row, of func(results.Row) float64) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = of(r)
	}
	return out
}

// betweenEstimate is, for two runs' reps of one metric, the squared
// difference of their log means less its within-run part: an unbiased
// estimate of twice the between-run variance.
func betweenEstimate(a, b []float64) (float64, bool) {
	la, lb := logs(a), logs(b)
	if len(la) < 2 || len(lb) < 2 {
		return 0, false
	}
	ma, va := meanVar(la)
	mb, vb := meanVar(lb)
	within := ((float64(len(la))-1)*va + (float64(len(lb))-1)*vb) / float64(len(la)+len(lb)-2)
	d := ma - mb
	return d*d - within*(1/float64(len(la))+1/float64(len(lb))), true
}

func meanVar(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}

// judgeRuns is judge with a run-level effect of sd between runs, itself
// estimated on sdDF degrees of freedom: the change is the difference of
// the log means, its standard error the reps' spread and twice the
// between-run variance together, tested with Student's t on the
// Welch-Satterthwaite degrees of freedom of the two. A point's own
// between-run SD from four calibration runs has three: the normal test
// would take it for exact and flag what is within its uncertainty.
func judgeRuns(v *MetricVerdict, alpha, thresholdPct, sd, sdDF float64) {
	v.OldMedian, v.NewMedian = median(v.Old), median(v.New)
	v.Ratio, v.Lo, v.Hi, v.P = math.NaN(), math.Inf(-1), math.Inf(1), 1
	lo, ln := logs(v.Old), logs(v.New)
	if len(lo) < 2 || len(ln) < 2 {
		v.Outcome = OutUndecided
		return
	}
	mo, vo := meanVar(lo)
	mn, vn := meanVar(ln)
	withinDF := float64(len(lo) + len(ln) - 2)
	within := ((float64(len(lo))-1)*vo + (float64(len(ln))-1)*vn) / withinDF
	between, reps := 2*sd*sd, within*(1/float64(len(lo))+1/float64(len(ln)))
	se := math.Sqrt(between + reps)
	d := mn - mo
	if se == 0 {
		v.Outcome = OutUndecided
		return
	}
	df := satterthwaite(between, sdDF, reps, withinDF)
	q := stats.StudentQuantile(1-alpha/2, df)
	v.P = stats.StudentTwoSided(d/se, df)
	v.Ratio, v.Lo, v.Hi = math.Exp(d), math.Exp(d-q*se), math.Exp(d+q*se)
	decide(v, v.P, alpha, thresholdPct)
}

// satterthwaite is the degrees of freedom of a sum of two variance
// estimates a and b with da and db degrees of freedom.
func satterthwaite(a, da, b, db float64) float64 {
	den := 0.0
	if a > 0 {
		den += a * a / da
	}
	if b > 0 {
		den += b * b / db
	}
	if den == 0 {
		return da + db
	}
	return (a + b) * (a + b) / den
}

// decide sets v's outcome from its p-value and interval.
func decide(v *MetricVerdict, p, alpha, thresholdPct float64) {
	t := thresholdPct / 100
	up, down := v.Lo > 1+t, v.Hi < 1-t // the whole interval beyond the threshold
	worse, better := up, down
	if !higherIsWorse(v.Metric) {
		worse, better = down, up
	}
	switch {
	case p >= alpha:
		v.Outcome = OutNoChange
	case worse:
		v.Outcome = OutRegression
	case better:
		v.Outcome = OutImprovement
	default:
		v.Outcome = OutSmall
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeRunVariation says which run-to-run variation the verdicts rest on.
func writeRunVariation(b *strings.Builder, r Verdict) {
	rv := r.RunVariation
	if r.Variants && rv == nil {
		b.WriteString(pairingText(r.Verdicts) + "\n")
		return
	}
	if rv == nil {
		b.WriteString("run-to-run variation: not estimated: with one run per side the verdict assumes none beyond the reps' spread " +
			"(reps of one run share its store and the machine's state; `make aa` shows how often that assumption fails here; -calibrate AA_RUN -calibrate AA_RUN estimates it)\n")
		return
	}
	var parts []string
	for _, m := range repMetrics {
		if n := rv.Estimates[m.kind]; n > 0 {
			part := fmt.Sprintf("%s %.1f%%", m.kind, 100*(math.Exp(rv.SD[m.kind])-1))
			if k, sd, ok := rv.widest(m.kind); ok && sd > rv.SD[m.kind] {
				part += fmt.Sprintf(" (up to %.1f%% for %s)", 100*(math.Exp(sd)-1), k)
			}
			parts = append(parts, part)
		}
	}
	fmt.Fprintf(b, "run-to-run variation: from %s: between runs %s; each change is judged against the larger of its point's own and the pooled variation, and the reps' spread (Student's t on the log means with the estimates' degrees of freedom, not Mann-Whitney)\n", rv.Source, strings.Join(parts, ", "))
}

// widest is the point whose own between-run SD of kind is the largest.
func (rv *RunVariation) widest(kind string) (results.Key, float64, bool) {
	var at results.Key
	best, found := -1.0, false
	for k, m := range rv.PointSD {
		if sd, ok := m[kind]; ok && (sd > best || sd == best && k.String() < at.String()) {
			at, best, found = k, sd, true
		}
	}
	return at, best, found
}
