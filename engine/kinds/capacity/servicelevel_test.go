package capacity

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestJudge(t *testing.T) {
	sl := ServiceLevel{Percentile: 99, MaxLatency: 50 * time.Millisecond, MaxErrorPct: 1, MinAchievedPct: 95, MaxLatePct: 5}
	ms := time.Millisecond
	ok := Observation{Rate: 1000, Elapsed: time.Second, Calls: 1000, Achieved: 1000, Latency: 10 * ms, LatencyLow: 9 * ms}
	tests := []struct {
		name string
		edit func(o *Observation)
		want []string
	}{
		{name: "held", edit: func(*Observation) {}},
		{name: "percentile over", edit: func(o *Observation) { o.Latency, o.LatencyLow = 80*ms, 60*ms }, want: []string{BoundLatency}},
		// The percentile is over but its interval reaches under the
		// bound: not evidence enough.
		{name: "percentile unsure", edit: func(o *Observation) { o.Latency, o.LatencyLow = 80*ms, 40*ms }},
		{name: "too few calls for an interval", edit: func(o *Observation) { o.Calls, o.Achieved, o.Latency, o.LatencyLow = 5, 5, 80*ms, 0 }, want: []string{BoundLatency, BoundAchieved}},
		{name: "errors", edit: func(o *Observation) { o.Errors = 30 }, want: []string{BoundErrors}},
		// Shares are compared as measured, as the probe's row shows them.
		{name: "one error in forty", edit: func(o *Observation) { o.Rate, o.Calls, o.Errors, o.Achieved = 40, 39, 1, 39 }, want: []string{BoundErrors}},
		{name: "errors at the bound", edit: func(o *Observation) { o.Calls, o.Errors = 990, 10 }},
		{name: "achieved short", edit: func(o *Observation) { o.Calls, o.Achieved = 900, 900 }, want: []string{BoundAchieved}},
		{name: "achieved 9 of 10 due", edit: func(o *Observation) { o.Rate, o.Calls, o.Achieved = 10, 9, 9 }, want: []string{BoundAchieved}},
		{name: "achieved at the bound", edit: func(o *Observation) { o.Calls, o.Achieved = 950, 950 }},
		{name: "late", edit: func(o *Observation) { o.Late = 100 }, want: []string{BoundLate}},
		{name: "one late of ten", edit: func(o *Observation) { o.Rate, o.Calls, o.Late, o.Achieved = 10, 10, 1, 10 }, want: []string{BoundLate}},
		// issue 44: 6.67% late was shown "held" against max_late_pct = 5.
		{name: "6.67% late", edit: func(o *Observation) { o.Rate, o.Calls, o.Late, o.Achieved = 150, 150, 10, 150 }, want: []string{BoundLate}},
		{name: "late at the bound", edit: func(o *Observation) { o.Late = 50 }},
		{name: "nothing completed", edit: func(o *Observation) { o.Calls, o.Errors, o.Achieved = 0, 1000, 0 }, want: []string{BoundLatency, BoundErrors, BoundAchieved}},
	}
	for _, tt := range tests {
		o := ok
		tt.edit(&o)
		if got := sl.Judge(o); !slices.Equal(got, tt.want) {
			t.Errorf("%s: broke %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := sl.String(); got != "p99<=50ms errors<=1% achieved>=95% late<=5%" {
		t.Errorf("service level %q", got)
	}
}

func TestCallsForAndWindow(t *testing.T) {
	if n := CallsFor(99); n != 2000 {
		t.Errorf("calls for p99: %d, want 2000 (20 past it)", n)
	}
	if n := CallsFor(50); n != 40 {
		t.Errorf("calls for p50: %d, want 40", n)
	}
	if w := Window(100, 99, time.Second, 5*time.Second); w != 5*time.Second {
		t.Errorf("window at 100/s: %s, want the max", w)
	}
	if w := Window(4000, 99, time.Second, 5*time.Second); w != time.Second {
		t.Errorf("window at 4000/s: %s, want the min", w)
	}
	if w := Window(1000, 99, time.Second, 5*time.Second); w != 2*time.Second {
		t.Errorf("window at 1000/s: %s, want 2s", w)
	}
}

// A probe's row writes what it could not measure as NaN (empty in
// capacity-probes.csv), never 0: issue 44 found percentile_high_ms 0.
func TestProbeRowUnknowns(t *testing.T) {
	ms := time.Millisecond
	base := results.Row{Scenario: "capacity", Backend: "sqlite", Scale: "xs"}
	few := probeRow(base, "read", 8, Probe{N: 1, Observation: Observation{Rate: 10, Elapsed: time.Second, Calls: 10, Achieved: 10,
		Latency: 4 * ms, LatencyLow: 3 * ms, P50: ms, P99: 4 * ms}})
	if !math.IsNaN(few.PctlHighMs) || few.PctlLowMs != 3 || few.PctlMs != 4 || few.P50Ms != 1 {
		t.Errorf("too few calls for the interval's high end: %+v", few)
	}
	none := probeRow(base, "read", 8, Probe{N: 2, Observation: Observation{Rate: 10, Elapsed: time.Second, Errors: 10}, Failed: []string{BoundLatency}})
	for name, v := range map[string]float64{"percentile": none.PctlMs, "low": none.PctlLowMs, "high": none.PctlHighMs, "p50": none.P50Ms, "p99": none.P99Ms} {
		if !math.IsNaN(v) {
			t.Errorf("no call completed: %s %v, want NaN", name, v)
		}
	}
	if none.ErrorPct != 100 || none.AchievedPct != 0 {
		t.Errorf("no call completed: errors %v%%, achieved %v%%", none.ErrorPct, none.AchievedPct)
	}
}
