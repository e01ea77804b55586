package measure

import (
	"context"
	"math"
	"testing"
	"time"
)

// bimodal alternates fast and slow calls, so the median sits on the gap
// between them and its confidence interval spans both: never precise.
func bimodal() Call {
	n := 0
	return func(context.Context) error {
		n++
		if n%2 == 0 {
			time.Sleep(4 * time.Millisecond)
		} else {
			time.Sleep(200 * time.Microsecond)
		}
		return nil
	}
}

func TestRunPointAdaptive(t *testing.T) {
	const maxD = 400 * time.Millisecond
	tests := []struct {
		name      string
		clients   int
		call      func() Call
		precision float64
		p99       float64
		want      string
		p99Known  bool // P99RelCI finite
	}{
		{"fixed method stops at the minimums", 1, func() Call { return sleeper(time.Millisecond) }, 0, 0, StopMin, false},
		{"steady calls reach the precision", 1, func() Call { return sleeper(time.Millisecond) }, 0.05, 0, StopPrecision, false},
		{"steady calls, three clients", 3, func() Call { return sleeper(time.Millisecond) }, 0.05, 0, StopPrecision, false},
		{"a bimodal median is never precise", 1, bimodal, 0.05, 0, StopMax, false},
		// A p99 needs several hundred calls to be bracketed at all.
		{"p99 declared: too few calls", 1, func() Call { return sleeper(2 * time.Millisecond) }, 0.5, 0.5, StopMax, false},
		{"p99 declared and reached", 1, func() Call { return sleeper(0) }, 0.5, 10, StopPrecision, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Sampling{MinDuration: 20 * time.Millisecond, MinSamples: 10, MaxDuration: maxD, Precision: tc.precision, PrecisionP99: tc.p99}
			res, err := RunPoint(context.Background(), s, []Stream{
				{Op: "read", Calls: clients(tc.clients, func(int) Call { return tc.call() })},
				{Op: "write", Calls: []Call{sleeper(time.Millisecond)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.StoppedBy != tc.want || res[1].StoppedBy != tc.want {
				t.Fatalf("stopped by %q / %q, want %q (elapsed %s, n %d, p50 ci %.3f, p99 ci %.3f)",
					r.StoppedBy, res[1].StoppedBy, tc.want, r.Elapsed, r.Count, r.P50RelCI, r.P99RelCI)
			}
			if r.Elapsed < s.MinDuration || r.Count < int64(s.MinSamples) {
				t.Errorf("stopped before the minimums: %s, %d calls", r.Elapsed, r.Count)
			}
			switch tc.want {
			case StopPrecision:
				if r.P50RelCI > tc.precision {
					t.Errorf("p50 known within %.3f, declared %.3f", r.P50RelCI, tc.precision)
				}
				if r.Elapsed >= maxD {
					t.Errorf("ran to the max duration (%s) although precise", r.Elapsed)
				}
			case StopMax:
				if r.Elapsed < maxD {
					t.Errorf("elapsed %s < max %s", r.Elapsed, maxD)
				}
				if tc.p99 == 0 && !(r.P50RelCI > tc.precision) {
					t.Errorf("p50 ci %.3f within %.3f yet not stopped by precision", r.P50RelCI, tc.precision)
				}
			}
			if math.IsInf(r.P99RelCI, 1) == tc.p99Known && r.Count < 5000 {
				t.Errorf("p99 ci %v with %d calls, want known %v", r.P99RelCI, r.Count, tc.p99Known)
			}
			if math.IsNaN(r.P50RelCI) || r.P50RelCI < 0 {
				t.Errorf("p50 ci %v", r.P50RelCI)
			}
		})
	}
}

func TestRunPointInterruptedStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s := Sampling{MinDuration: time.Hour, MaxDuration: time.Hour, Precision: 0.01}
	res, err := RunPoint(ctx, s, []Stream{{Op: "read", Calls: []Call{sleeper(time.Millisecond)}}})
	if err == nil {
		t.Fatal("no error for an interrupted point")
	}
	if res[0].StoppedBy != StopInterrupted {
		t.Errorf("stopped by %q, want %q", res[0].StoppedBy, StopInterrupted)
	}
}
