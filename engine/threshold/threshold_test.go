package threshold

import (
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestMatches(t *testing.T) {
	s := NewSpec("t")
	s.Scenario, s.Op, s.Backend = "point_lookup", "read", "sqlite"
	row := results.Row{Scenario: "point_lookup", Backend: "sqlite", Scale: "xs", Clients: 4, Op: "read"}
	with := func(f func(*results.Row)) results.Row { r := row; f(&r); return r }
	for _, tt := range []struct {
		name string
		row  results.Row
		want bool
	}{
		{"the point", row, true},
		{"another op", with(func(r *results.Row) { r.Op = "write" }), false},
		{"an open-loop phase of the op", with(func(r *results.Row) { r.Op = "read@500" }), true},
		{"a ceiling row", with(func(r *results.Row) { r.Op = results.OpCeiling }), true},
		{"another backend", with(func(r *results.Row) { r.Backend = "duckdb" }), false},
		{"another scenario", with(func(r *results.Row) { r.Scenario = "scan" }), false},
	} {
		if got := s.Matches(tt.row); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	any := NewSpec("any")
	if !any.Matches(with(func(r *results.Row) { r.Op = "total" })) {
		t.Error("a threshold without filters must match every point")
	}
	any.Clients = 8
	if any.Matches(row) {
		t.Error("clients = 8 matched a point of 4 clients")
	}
}

// hist records n calls of latency d.
func hist(n int, d time.Duration) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for range n {
		_ = h.RecordValue(int64(d))
	}
	return h
}

// TestObserveMerges: the percentiles are those of the merged histogram,
// not a median of per-rep (or per-worker) figures: 98 fast calls in one
// interval and 2 slow ones in the other put p99 at the slow calls, which
// neither interval's own p50 shows.
func TestObserveMerges(t *testing.T) {
	t0 := time.Unix(0, 0)
	ivs := []results.Interval{
		{Start: t0, End: t0.Add(time.Second), Hist: hist(98, time.Millisecond)},
		{Start: t0.Add(time.Second), End: t0.Add(2 * time.Second), Hist: hist(2, 50*time.Millisecond)},
	}
	o := Observe(ivs, 0, 0)
	if o.Calls != 100 || o.Elapsed != 2*time.Second || o.OpsS() != 50 {
		t.Fatalf("calls %d over %s (%v ops/s), want 100 over 2s", o.Calls, o.Elapsed, o.OpsS())
	}
	if o.P50Ms < 0.99 || o.P50Ms > 1.01 || o.P99Ms < 49 || o.P99Ms > 51 {
		t.Errorf("p50 %v p99 %v ms, want about 1 and 50", o.P50Ms, o.P99Ms)
	}
}

func TestJudge(t *testing.T) {
	t0 := time.Unix(0, 0)
	o := Observe([]results.Interval{{Start: t0, End: t0.Add(time.Second), Hist: hist(1000, 2*time.Millisecond)}}, 10, 100)
	set := func(f func(*Spec)) Spec { s := NewSpec("t"); f(&s); return s }
	for _, tt := range []struct {
		name    string
		s       Spec
		crossed bool
		detail  string
	}{
		{"p99 below a microsecond", set(func(s *Spec) { s.P99Ms = 0.001 }), true, "p99 2.001 > 0.001 ms"},
		{"a loose p99", set(func(s *Spec) { s.P99Ms = 5 }), false, "p99 2.001 <= 5 ms"},
		{"p50 and max", set(func(s *Spec) { s.P50Ms, s.MaxMs = 5, 1 }), true, "max 2.001 > 1 ms"},
		{"ops/s reached", set(func(s *Spec) { s.MinOpsS = 900 }), false, "ops/s 1000 >= 900 ops/s"},
		{"ops/s not reached", set(func(s *Spec) { s.MinOpsS = 2000 }), true, "ops/s 1000 < 2000 ops/s"},
		{"error rate", set(func(s *Spec) { s.MaxErrorRate = 0.001 }), true, "error rate 0.9901 > 0.1%"},
		{"late share", set(func(s *Spec) { s.MaxLateShare = 0.5 }), false, "late share 9.901 <= 50%"},
	} {
		detail, crossed := tt.s.Judge(o)
		if crossed != tt.crossed || !strings.Contains(detail, tt.detail) {
			t.Errorf("%s: %q crossed=%v, want %q crossed=%v", tt.name, detail, crossed, tt.detail, tt.crossed)
		}
	}
	// No successful call passes no latency bound.
	if _, crossed := set(func(s *Spec) { s.P99Ms = 5 }).Judge(Observed{Errors: 3}); !crossed {
		t.Error("a point without a successful call passed a p99 bound")
	}
}
