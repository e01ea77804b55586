// Package changepoint finds the runs where a benchmark series changed:
// E-Divisive means (Matteson and James, as Apache Otava, formerly Hunter,
// runs it) over every rep of every run, with a t-test over runs deciding
// significance and weak candidates re-checked against their neighbours.
//
// The input is a sequence of groups, one per run in run order, each the
// values of that run's reps. Changes are looked for only between runs.
// Values are compared on a log scale, so a change is a ratio.
//
// Two choices differ from Otava. The divergence that places a change is
// computed over every rep, not one scalar per run, so a change in spread
// or shape places a change as well as one in the median. The test that
// accepts it takes the run as its unit (the mean of its reps' logs):
// reps of one run share its freshly loaded store and the machine's state
// that minute, so a test on reps as independent samples understates the
// run-to-run variance and calls noise a change.
package changepoint

import (
	"math"
	"slices"

	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// Options tune the detection; zero fields take the defaults.
type Options struct {
	// MaxP is the p-value a change must reach after the re-check against
	// its neighbours (default 0.001, Otava's default).
	MaxP float64
	// WeakP is the p-value a candidate must reach when first found by
	// bisection (default 10 × MaxP).
	WeakP float64
	// Confidence of the magnitude interval (default 0.95).
	Confidence float64
	// Known, when set, says which groups follow a deliberate change
	// (of the spec, a variable, a setting): a change found one group
	// beside a known one is placed at it when the split there passes
	// MaxP too. The divergence puts a step where the data differ most,
	// and one run that happened to land high can pull a real step one
	// run early; the known cause is the better witness of where it is.
	Known func(group int) bool
}

func (o Options) withDefaults() Options {
	if o.MaxP <= 0 {
		o.MaxP = 0.001
	}
	if o.WeakP <= 0 {
		o.WeakP = 10 * o.MaxP
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = 0.95
	}
	return o
}

// Change is one change point.
type Change struct {
	// Index is the first run (group) of the new segment.
	Index int
	// Start and End bound the segments compared: runs [Start, Index)
	// before, [Index, End) after (the neighbouring changes or the ends).
	Start, End int
	// Ratio is the geometric mean after over before (of the runs' mean
	// logs); Low and High its interval at Options.Confidence.
	Ratio, Low, High float64
	// PValue of the t-test over runs, multiplied by the number of splits
	// the change was chosen among (Bonferroni); DF the t-test's degrees
	// of freedom.
	PValue, DF float64
}

// Pct is the change in percent: +15 for a ratio of 1.15.
func (c Change) Pct() float64 { return 100 * (c.Ratio - 1) }

// Detect returns the change points of groups, earliest first. Values that
// are not positive are left out (a log needs them positive); a group left
// empty takes no part.
func Detect(groups [][]float64, opt Options) []Change {
	opt = opt.withDefaults()
	s := newSeries(groups)
	if s.n < 2 {
		return nil
	}
	var cand []int
	s.bisect(0, s.n, opt.WeakP, &cand)
	slices.Sort(cand)
	// Re-check: each candidate against its neighbours; the weakest that
	// fails the strict level goes, and the others are tested again
	// without it, until every one left passes.
	for len(cand) > 0 {
		worst, worstP := -1, opt.MaxP
		for i := range cand {
			st, en := bounds(cand, i, s.n)
			if p := s.test(st, cand[i], en).PValue; p > worstP || math.IsNaN(p) {
				worst, worstP = i, p
			}
		}
		if worst < 0 {
			break
		}
		cand = slices.Delete(cand, worst, worst+1)
	}
	if opt.Known != nil {
		s.snapToKnown(cand, opt)
	}
	out := make([]Change, 0, len(cand))
	for i, c := range cand {
		st, en := bounds(cand, i, s.n)
		ch := s.test(st, c, en)
		ch.Low, ch.High = s.interval(st, c, en, opt.Confidence)
		// Report positions in the caller's groups.
		ch.Index, ch.Start, ch.End = s.orig[c], s.orig[st], s.origEnd(en)
		out = append(out, ch)
	}
	return out
}

// snapToKnown moves each candidate that is not at a known change to a
// known one beside it, where the split there is significant as well;
// of two known neighbours, the one with the smaller p-value.
func (s *series) snapToKnown(cand []int, opt Options) {
	for i, c := range cand {
		if opt.Known(s.orig[c]) {
			continue
		}
		st, en := bounds(cand, i, s.n)
		best, bestP := -1, opt.MaxP
		for _, t := range []int{c - 1, c + 1} {
			if t <= st || t >= en || !opt.Known(s.orig[t]) {
				continue
			}
			if p := s.test(st, t, en).PValue; p <= bestP {
				best, bestP = t, p
			}
		}
		if best >= 0 {
			cand[i] = best
		}
	}
}

// bounds are the segment ends around candidate i: the previous candidate
// (or 0) and the next (or n).
func bounds(cand []int, i, n int) (int, int) {
	st, en := 0, n
	if i > 0 {
		st = cand[i-1]
	}
	if i+1 < len(cand) {
		en = cand[i+1]
	}
	return st, en
}

// series holds the non-empty groups in log scale, with the prefix sums
// that make the divergence of any split O(1).
type series struct {
	n     int       // groups kept
	orig  []int     // index in the caller's groups of each kept group
	total int       // groups given
	means []float64 // mean log per group
	// wn is each group's own variance of its mean: the within-run
	// variance of its logs over its reps (0 for a single rep).
	wn  []float64
	cnt []int // reps per group, prefix sums: cnt[i] = reps in [0, i)
	// dist[i*(n+1)+j] = Σ |x-y| over reps x in groups [0,i), y in [0,j).
	dist []float64
}

func (s *series) origEnd(en int) int {
	if en >= s.n {
		return s.total
	}
	return s.orig[en]
}

func newSeries(groups [][]float64) *series {
	s := &series{total: len(groups)}
	var logs [][]float64
	for i, g := range groups {
		var l []float64
		for _, v := range g {
			if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				l = append(l, math.Log(v))
			}
		}
		if len(l) == 0 {
			continue
		}
		slices.Sort(l)
		logs = append(logs, l)
		s.orig = append(s.orig, i)
	}
	n := len(logs)
	s.n = n
	s.means = make([]float64, n)
	s.wn = make([]float64, n)
	s.cnt = make([]int, n+1)
	for i, l := range logs {
		m, v, k := meanVar(l)
		s.means[i] = m
		if k > 1 {
			s.wn[i] = v / k
		}
		s.cnt[i+1] = s.cnt[i] + len(l)
	}
	// Pairwise sums of distances between groups, then 2-D prefix sums.
	w := n + 1
	s.dist = make([]float64, w*w)
	for i := range n {
		for j := i; j < n; j++ {
			d := sumAbsDiff(logs[i], logs[j])
			s.dist[(i+1)*w+j+1] = d
			s.dist[(j+1)*w+i+1] = d
		}
	}
	for i := 1; i <= n; i++ {
		row := 0.0
		for j := 1; j <= n; j++ {
			row += s.dist[i*w+j]
			s.dist[i*w+j] = s.dist[(i-1)*w+j] + row
		}
	}
	return s
}

// sumAbsDiff is Σ|x-y| over x in a, y in b, both sorted, in O(len(a)+len(b)).
func sumAbsDiff(a, b []float64) float64 {
	// For each x in a: Σ_y |x-y| = x·k - Σ_{y<x} y + (Σ_{y>=x} y) - x·(m-k).
	var total, sumB float64
	for _, y := range b {
		sumB += y
	}
	k, below := 0, 0.0
	m := len(b)
	for _, x := range a {
		for k < m && b[k] < x {
			below += b[k]
			k++
		}
		total += x*float64(k) - below + (sumB - below) - x*float64(m-k)
	}
	return total
}

// block is Σ|x-y| over reps x in groups [a0,a1), y in [b0,b1).
func (s *series) block(a0, a1, b0, b1 int) float64 {
	w := s.n + 1
	d := s.dist
	return d[a1*w+b1] - d[a0*w+b1] - d[a1*w+b0] + d[a0*w+b0]
}

// divergence is the E-Divisive statistic of splitting [st, en) at t:
// (nx·ny/(nx+ny)) · (2·E|X-Y| - E|X-X'| - E|Y-Y'|), over every rep.
func (s *series) divergence(st, t, en int) float64 {
	nx := float64(s.cnt[t] - s.cnt[st])
	ny := float64(s.cnt[en] - s.cnt[t])
	between := s.block(st, t, t, en) / (nx * ny)
	within := func(a, b int, n float64) float64 {
		if n < 2 {
			return 0
		}
		return s.block(a, b, a, b) / (n * (n - 1))
	}
	return nx * ny / (nx + ny) * (2*between - within(st, t, nx) - within(t, en, ny))
}

// bisect finds the split of [st, en) with the largest divergence, keeps
// it when its t-test passes weakP, and looks on both sides of it.
func (s *series) bisect(st, en int, weakP float64, cand *[]int) {
	if en-st < 2 {
		return
	}
	best, bestQ := -1, math.Inf(-1)
	for t := st + 1; t < en; t++ {
		if q := s.divergence(st, t, en); q > bestQ {
			best, bestQ = t, q
		}
	}
	if best < 0 || !(s.test(st, best, en).PValue <= weakP) {
		return
	}
	*cand = append(*cand, best)
	s.bisect(st, best, weakP, cand)
	s.bisect(best, en, weakP, cand)
}

// test compares the run means of [st, t) and [t, en) with Student's
// t-test (a side may be a single run: a change at the newest run can be
// judged the day it lands).
func (s *series) test(st, t, en int) Change {
	diff, se, df := s.diffSE(st, t, en)
	c := Change{Index: t, Start: st, End: en, Ratio: math.Exp(diff), DF: df, PValue: 1}
	if se > 0 && df > 0 {
		c.PValue = stats.StudentTwoSided(diff/se, df)
	} else if se == 0 && diff != 0 && df > 0 {
		c.PValue = 0
	}
	// The split was chosen as the most divergent of en-st-1: Bonferroni
	// over them keeps the p-value honest (an upper bound) where the
	// t-test alone, at the best of many splits, would call noise a change.
	c.PValue = min(1, c.PValue*float64(en-st-1))
	return c
}

func (s *series) interval(st, t, en int, conf float64) (float64, float64) {
	diff, se, df := s.diffSE(st, t, en)
	if !(df > 0) {
		return math.Inf(-1), math.Inf(1)
	}
	q := stats.StudentQuantile(1-(1-conf)/2, df)
	return math.Exp(diff - q*se), math.Exp(diff + q*se)
}

// diffSE returns after-minus-before of the mean run means, its standard
// error and degrees of freedom (0 when no variance can be estimated).
//
// A run's mean varies by the variation between runs (τ², the same for
// every run) plus its own reps' spread over their number, which is not:
// a run whose reps met two stalls has a mean far less sure than its
// neighbours'. τ² is pooled over the segments (Student: with a side of a
// run or two, Welch's own estimate of that side is too unsure to divide
// by), each run's own part added to it, so that one run with wild reps
// at the newest position is not a change by itself. With every run's
// spread alike this is the pooled t-test on run means; where the two
// segments' runs spread unlike each other and Welch's standard error is
// the wider (each side of five runs or more), that is used, with its
// degrees of freedom.
func (s *series) diffSE(st, t, en int) (diff, se, df float64) {
	m1, v1, n1 := meanVar(s.means[st:t])
	m2, v2, n2 := meanVar(s.means[t:en])
	diff = m2 - m1
	if df = n1 + n2 - 2; df > 0 {
		w1, w2 := sum(s.wn[st:t]), sum(s.wn[t:en])
		// Each segment of two or more runs estimates τ² as its run means'
		// variance less their mean own part.
		tau2 := max(((n1-1)*(v1-w1/n1)+(n2-1)*(v2-w2/n2))/df, 0)
		// A run's own part is known from a few reps only: it may widen
		// its mean's uncertainty beyond the runs' typical one, never
		// narrow it (a run whose five reps happened to agree is no surer
		// than its neighbours).
		typical := (w1 + w2) / (n1 + n2)
		own1, own2 := sumAtLeast(s.wn[st:t], typical), sumAtLeast(s.wn[t:en], typical)
		se = math.Sqrt((n1*tau2+own1)/(n1*n1) + (n2*tau2+own2)/(n2*n2))
		// Segments whose runs spread unlike each other (a machine that
		// flips between two modes after a quiet stretch): where each
		// side's own spread says more than the pool, Welch's test. Only
		// with welchRuns or more runs a side: from fewer, a side's own
		// variance rests on under 4 degrees of freedom, and a change of
		// -70% over three new runs would drown in Welch's t quantile.
		if n1 >= welchRuns && n2 >= welchRuns {
			a, b := v1/n1, v2/n2
			if w := math.Sqrt(a + b); w > se {
				se, df = w, (a+b)*(a+b)/(a*a/(n1-1)+b*b/(n2-1))
			}
		}
	}
	return diff, se, df
}

// welchRuns is the fewest runs a side needs for Welch's test.
const welchRuns = 5

func sum(v []float64) float64 {
	var t float64
	for _, x := range v {
		t += x
	}
	return t
}

// sumAtLeast is the sum of max(x, floor) over v.
func sumAtLeast(v []float64, floor float64) float64 {
	var t float64
	for _, x := range v {
		t += max(x, floor)
	}
	return t
}

func meanVar(v []float64) (mean, variance, n float64) {
	n = float64(len(v))
	if n == 0 {
		return 0, 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= n
	if n < 2 {
		return mean, 0, n
	}
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / (n - 1), n
}
