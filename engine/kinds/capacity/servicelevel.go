package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// The bounds of a service level, as capacity.csv's limited_by names them,
// and what limited a search that no bound did.
const (
	BoundLatency  = "latency"  // the percentile passed its max
	BoundErrors   = "errors"   // too many calls failed
	BoundAchieved = "achieved" // the achieved rate fell short of the target
	BoundLate     = "late"     // too many calls started late
	LimitMaxRate  = "max_rate" // every probe passed up to the search's max rate: capacity is at least that
	LimitMinRate  = "min_rate" // no probe passed down to the min rate
	LimitBudget   = "budget"   // the probe or time budget ended the search before its resolution
	// LimitUndecided: the passes' edges disagree so much that their 95%
	// interval reaches 0 (Outcome.Undecided says how); no capacity.
	LimitUndecided = "undecided"
	// BoundThroughput (a clients search): throughput stopped growing.
	BoundThroughput = "throughput"
)

// ClientsJudge judges a probe of a clients search (Observation.Rate is
// its client count, Achieved its throughput): the service level's
// percentile and errors bounds, and throughput that grew by less than
// gain (0.05: 5%) per doubling of clients over the best lower count that
// held.
func ClientsJudge(sl ServiceLevel, gain float64) func(Observation, []Probe) []string {
	sl.MinAchievedPct, sl.MaxLatePct = 0, 100 // a closed loop offers no rate and is never late
	return func(o Observation, before []Probe) []string {
		failed := sl.Judge(o)
		var best *Probe
		for i, p := range before {
			if p.Rate < o.Rate && p.Held() && (best == nil || p.Achieved > best.Achieved) {
				best = &before[i]
			}
		}
		if best != nil && o.Achieved < best.Achieved*(1+gain*math.Log2(o.Rate/best.Rate)) {
			failed = append(failed, BoundThroughput)
		}
		return failed
	}
}

// ServiceLevel is what a rate must keep to count as sustained.
type ServiceLevel struct {
	Percentile     float64       // e.g. 99
	MaxLatency     time.Duration // the percentile's bound
	MaxErrorPct    float64       // failed calls, % of calls started
	MinAchievedPct float64       // successful calls per second, % of the offered rate
	MaxLatePct     float64       // calls started past the late bound, % of calls started
}

// String is the service level in one line, as capacity.csv writes it.
func (sl ServiceLevel) String() string {
	return fmt.Sprintf("p%s<=%sms errors<=%s%% achieved>=%s%% late<=%s%%", num(sl.Percentile),
		num(float64(sl.MaxLatency)/float64(time.Millisecond)), num(sl.MaxErrorPct), num(sl.MinAchievedPct), num(sl.MaxLatePct))
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Observation is one probe's measurement at an offered rate.
type Observation struct {
	Rate    float64 // offered calls per second
	Elapsed time.Duration
	// Calls succeeded, Errors failed; Late started past the late bound;
	// Dropped were due but never started.
	Calls, Errors, Late, Dropped int64
	Achieved                     float64       // successful calls per second
	Latency                      time.Duration // at the service level's percentile, from each call's intended start
	// LatencyLow and LatencyHigh bracket Latency with the 95%
	// order-statistic interval of its rank; each is zero when too few
	// calls lie on its side of the percentile.
	LatencyLow, LatencyHigh time.Duration
	P50, P99                time.Duration
	ClientCPU               time.Duration
}

// Observe turns a timed run's result at rate into an observation for the
// service level's percentile.
func Observe(r measure.Result, rate, percentile float64) Observation {
	o := Observation{Rate: rate, Elapsed: r.Elapsed, Calls: r.Count, Errors: r.Errors, Late: r.Late, Dropped: r.Dropped,
		Achieved: r.Throughput, P50: r.P50, P99: r.P99, ClientCPU: r.ClientCPU}
	if r.Hist != nil && r.Count > 0 {
		o.Latency, o.LatencyLow, o.LatencyHigh = quantile(r.Hist, percentile/100, r.Max)
	}
	return o
}

// quantile is the q-quantile of h and its 95% order-statistic interval,
// capped at the largest call.
func quantile(h *hdrhistogram.Histogram, q float64, maxLat time.Duration) (at, lo, hi time.Duration) {
	n := h.TotalCount()
	capped := func(v int64) time.Duration { return min(time.Duration(v), maxLat) }
	at = capped(h.ValueAtPercentile(100 * q))
	l, u, _ := stats.QuantileRanks(n, q, 0.95)
	if l >= 1 {
		lo = capped(h.ValueAtPercentile(100 * float64(l) / float64(n)))
	}
	if u <= n {
		hi = capped(h.ValueAtPercentile(100 * float64(u) / float64(n)))
	}
	return at, lo, hi
}

// Percentages of an observation.
func (o Observation) ErrorPct() float64 { return pct(o.Errors, o.Calls+o.Errors) }

// LatePct is the late calls' share of the calls started.
func (o Observation) LatePct() float64 { return pct(o.Late, o.Calls+o.Errors) }

// AchievedPct is the achieved rate's share of the offered one.
func (o Observation) AchievedPct() float64 {
	if o.Rate <= 0 {
		return 0
	}
	return 100 * o.Achieved / o.Rate
}

func pct(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// Judge lists the bounds o breaks, in the order latency, errors,
// achieved, late; none means the rate is sustained. The shares are
// compared as measured, as k6's thresholds and pgbench's latency limit
// compare them, so that a probe's row in capacity-probes.csv shows why
// it held: error_pct over max_error_pct, achieved_pct (the achieved rate
// against the offered one) under min_achieved_pct, late_pct over
// max_late_pct break their bounds. A percentile rests on the few calls
// beyond it, so it breaks its bound when the low end of its 95%
// order-statistic interval (percentile_low_ms) is over max_ms: a few calls
// a loaded machine stalled do not fail a rate the service sustains, while
// past the edge, where the queue grows through the window, the whole
// interval is over. With too few calls for that interval the percentile
// as measured (percentile_ms) is judged. A probe that completed no call
// breaks the latency and achieved bounds.
func (sl ServiceLevel) Judge(o Observation) []string {
	var failed []string
	lat := o.LatencyLow
	if lat == 0 {
		lat = o.Latency
	}
	if o.Calls == 0 || lat > sl.MaxLatency {
		failed = append(failed, BoundLatency)
	}
	if o.ErrorPct() > sl.MaxErrorPct {
		failed = append(failed, BoundErrors)
	}
	if o.Calls == 0 || o.AchievedPct() < sl.MinAchievedPct {
		failed = append(failed, BoundAchieved)
	}
	if o.LatePct() > sl.MaxLatePct {
		failed = append(failed, BoundLate)
	}
	return failed
}

// Validate reports a service level no rate could be judged by.
func (sl ServiceLevel) Validate() error {
	switch {
	case !(sl.Percentile > 0 && sl.Percentile < 100):
		return fmt.Errorf("percentile %v must be between 0 and 100", sl.Percentile)
	case sl.MaxLatency <= 0:
		return fmt.Errorf("max_ms must be positive")
	case sl.MaxErrorPct < 0 || sl.MaxErrorPct > 100, sl.MinAchievedPct < 0 || sl.MinAchievedPct > 100, sl.MaxLatePct < 0 || sl.MaxLatePct > 100:
		return fmt.Errorf("percentages are between 0 and 100")
	}
	return nil
}

// tailCalls is how many calls a probe window should hold beyond the
// percentile: the percentile then rests on that many calls, not one.
const tailCalls = 20

// CallsFor is how many calls a probe needs for its percentile: enough that
// tailCalls lie beyond it and its 95% order-statistic interval exists.
func CallsFor(percentile float64) int64 {
	q := percentile / 100
	n := int64(math.Ceil(tailCalls / (1 - q)))
	for {
		if _, _, ok := stats.QuantileRanks(n, q, 0.95); ok {
			return n
		}
		n += n/10 + 1
	}
}

// joinBounds is a list of bounds as one word list.
func joinBounds(b []string) string { return strings.Join(b, "+") }

// Window is a probe's length at rate: long enough for CallsFor(percentile)
// calls, between lo and hi.
func Window(rate, percentile float64, lo, hi time.Duration) time.Duration {
	need := time.Duration(float64(CallsFor(percentile)) / rate * float64(time.Second))
	return min(max(need, lo), hi)
}
