package measure

import (
	"testing"
	"time"
)

// The stopping rule's bounds, shared by a point's own run and a
// coordinator of workers: max before everything, then the least run, the
// least calls, and the fixed method's stop; precision decides the rest.
func TestBound(t *testing.T) {
	ms := time.Millisecond
	fixed := Sampling{MinDuration: 100 * ms, MinSamples: 10, MaxDuration: time.Second}
	adaptive := fixed
	adaptive.Precision = 0.05
	for _, tc := range []struct {
		name  string
		s     Sampling
		el    time.Duration
		calls int64
		stop  string
		wait  time.Duration
		held  bool
	}{
		{"past max, even with too few calls", fixed, time.Second, 0, StopMax, 0, false},
		{"before the least run", fixed, 40 * ms, 100, "", 60 * ms, true},
		{"too few calls", fixed, 200 * ms, 9, "", 0, true},
		{"fixed method done", fixed, 200 * ms, 10, StopMin, 0, false},
		{"adaptive: precision decides", adaptive, 200 * ms, 10, "", 0, false},
		{"adaptive past max", adaptive, 2 * time.Second, 10, StopMax, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop, wait, held := tc.s.Bound(tc.el, tc.s.MinDuration, tc.calls)
			if stop != tc.stop || wait != tc.wait || held != tc.held {
				t.Errorf("Bound = %q, %s, %v; want %q, %s, %v", stop, wait, held, tc.stop, tc.wait, tc.held)
			}
		})
	}
	for _, tc := range []struct{ el, want time.Duration }{{0, minCheckGap}, {100 * ms, 120 * ms}, {time.Second, 1100 * ms}} {
		if got := NextCheck(tc.el); got != tc.want {
			t.Errorf("NextCheck(%s) = %s, want %s", tc.el, got, tc.want)
		}
	}
}
