// Package threshold judges a spec's absolute gates (k6's thresholds) on a
// point's exact histogram: the merge of every rep's histogram, each of
// them already the merge of the point's clients, worker processes
// included. It knows rows and histograms only; the runner feeds it what
// the kinds emit and writes its verdicts as THRESHOLD lines.
package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Spec is one `threshold "name" {}` block, evaluated. A limit left unset
// is NaN; the filters left empty (or Clients 0) match every point.
type Spec struct {
	Name     string
	Scenario string
	Op       string // timings.csv's op: read, write, an operation's name, total; "" is every op
	Backend  string
	Scale    string
	Clients  int

	P50Ms, P95Ms, P99Ms, MaxMs float64 // upper bounds
	MinOpsS                    float64 // lower bound on successful calls per second
	MaxErrorRate               float64 // errors / (calls + errors), 0 to 1
	MaxLateShare               float64 // calls started later than their schedule's bound / calls, 0 to 1
	// Abort ends the scenario in its cell once crossed: its remaining reps
	// and points do not run (k6's abortOnFail).
	Abort bool
}

// Unset is the value of a limit the spec does not set.
var Unset = math.NaN()

// NewSpec returns a Spec with every limit unset.
func NewSpec(name string) Spec {
	return Spec{Name: name, P50Ms: Unset, P95Ms: Unset, P99Ms: Unset, MaxMs: Unset, MinOpsS: Unset, MaxErrorRate: Unset, MaxLateShare: Unset}
}

// Matches reports whether the threshold gates the point of row. A
// ceiling row (the scenario's first call passed the probe ceiling)
// matches whatever op the threshold names: the scenario's calls are too
// slow to run at all, which no latency bound can pass.
func (s Spec) Matches(row results.Row) bool {
	if s.Scenario != "" && s.Scenario != row.Scenario || s.Backend != "" && s.Backend != row.Backend ||
		s.Scale != "" && s.Scale != row.Scale || s.Clients != 0 && s.Clients != row.Clients {
		return false
	}
	if s.Op == "" || row.Op == results.OpCeiling {
		return true
	}
	op, _, _ := strings.Cut(row.Op, "@") // an open-loop phase: read@500
	return s.Op == row.Op || s.Op == op
}

// Observed is what a point measured, from its exact histogram.
type Observed struct {
	Calls, Errors, Late int64
	Elapsed             time.Duration // the measured windows' total length
	P50Ms, P95Ms        float64
	P99Ms, MaxMs        float64
}

// Observe merges the intervals' histograms (ns) exactly. errors and late
// come from the rows beside them (a histogram holds successful calls).
func Observe(intervals []results.Interval, errors, late int64) Observed {
	o := Observed{Errors: errors, Late: late}
	var merged *hdrhistogram.Histogram
	for _, iv := range intervals {
		if iv.Hist == nil {
			continue
		}
		if merged == nil {
			merged = hdrhistogram.New(iv.Hist.LowestTrackableValue(), iv.Hist.HighestTrackableValue(), int(iv.Hist.SignificantFigures()))
		}
		merged.Merge(iv.Hist)
		o.Elapsed += iv.End.Sub(iv.Start)
	}
	if merged == nil {
		return o
	}
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	o.Calls = merged.TotalCount()
	o.P50Ms, o.P95Ms = ms(merged.ValueAtQuantile(50)), ms(merged.ValueAtQuantile(95))
	o.P99Ms, o.MaxMs = ms(merged.ValueAtQuantile(99)), ms(merged.Max())
	return o
}

// OpsS is the successful calls per second over the measured windows.
func (o Observed) OpsS() float64 {
	if o.Elapsed <= 0 {
		return 0
	}
	return float64(o.Calls) / o.Elapsed.Seconds()
}

// ErrorRate is errors over every call made.
func (o Observed) ErrorRate() float64 {
	if o.Calls+o.Errors == 0 {
		return 0
	}
	return float64(o.Errors) / float64(o.Calls+o.Errors)
}

// LateShare is the share of calls that started late.
func (o Observed) LateShare() float64 {
	if o.Calls+o.Errors == 0 {
		return 0
	}
	return float64(o.Late) / float64(o.Calls+o.Errors)
}

// Judge sets o against every limit of s. It returns each limit in words
// ("p99 0.045 ms <= 5 ms") and whether any was crossed. A point with no
// successful call crosses every latency and rate limit: nothing was shown
// to be fast enough.
func (s Spec) Judge(o Observed) (detail string, crossed bool) {
	var parts []string
	bound := func(name string, got, limit float64, unit string, upper, needsCalls bool) {
		if math.IsNaN(limit) {
			return
		}
		ok := got <= limit
		if !upper {
			ok = got >= limit
		}
		if o.Calls == 0 && needsCalls {
			ok = false
		}
		op := "<="
		switch {
		case !ok && upper:
			op = ">"
		case ok && !upper:
			op = ">="
		case !upper:
			op = "<"
		}
		if !ok {
			crossed = true
		}
		if unit == "%" { // shares print as percentages
			got, limit = 100*got, 100*limit
		}
		parts = append(parts, fmt.Sprintf("%s %s %s %s%s", name, num(got), op, num(limit), unit))
	}
	bound("p50", o.P50Ms, s.P50Ms, " ms", true, true)
	bound("p95", o.P95Ms, s.P95Ms, " ms", true, true)
	bound("p99", o.P99Ms, s.P99Ms, " ms", true, true)
	bound("max", o.MaxMs, s.MaxMs, " ms", true, true)
	bound("ops/s", o.OpsS(), s.MinOpsS, " ops/s", false, true)
	bound("error rate", o.ErrorRate(), s.MaxErrorRate, "%", true, false)
	bound("late share", o.LateShare(), s.MaxLateShare, "%", true, false)
	if o.Calls == 0 {
		parts = append(parts, "no successful call")
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (%d calls, exact histogram)", o.Calls), crossed
}

// num prints a value with four significant digits, without an exponent
// in the ranges latencies, rates and shares take.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Limits reports whether s sets any limit.
func (s Spec) Limits() bool {
	for _, v := range []float64{s.P50Ms, s.P95Ms, s.P99Ms, s.MaxMs, s.MinOpsS, s.MaxErrorRate, s.MaxLateShare} {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}
