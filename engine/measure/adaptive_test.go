package measure

import (
	"context"
	"math"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// bimodal alternates fast and slow calls, so the median sits on the gap
// between them and its confidence interval spans both: never precise. The
// modes are far apart so that a loaded machine, which stretches short
// sleeps, does not merge them.
func bimodal() Call {
	n := 0
	return func(context.Context) error {
		n++
		if n%2 == 0 {
			time.Sleep(20 * time.Millisecond)
		} else {
			time.Sleep(100 * time.Microsecond)
		}
		return nil
	}
}

// Timing on a shared machine varies, so the cases that must stop by
// precision get a loose precision and a long max (they normally stop in
// tens of ms), and those that must run to the max cannot become precise
// however the calls are stretched.
func TestRunPointAdaptive(t *testing.T) {
	tests := []struct {
		name      string
		clients   int
		call      func() Call
		precision float64
		p99       float64
		max       time.Duration
		want      string
		p99Known  bool // P99RelCI finite
	}{
		{"fixed method stops at the minimums", 1, func() Call { return sleeper(time.Millisecond) }, 0, 0, 5 * time.Second, StopMin, false},
		{"steady calls reach the precision", 1, func() Call { return sleeper(time.Millisecond) }, 0.25, 0, 10 * time.Second, StopPrecision, false},
		{"steady calls, three clients", 3, func() Call { return sleeper(time.Millisecond) }, 0.25, 0, 10 * time.Second, StopPrecision, false},
		{"a bimodal median is never precise", 1, bimodal, 0.05, 0, 400 * time.Millisecond, StopMax, false},
		// A p99 needs about 560 calls to be bracketed at all; 2 ms calls
		// make at most 200 in 400 ms.
		{"p99 declared: too few calls", 1, func() Call { return sleeper(2 * time.Millisecond) }, 0.5, 0.5, 400 * time.Millisecond, StopMax, false},
		{"p99 declared and reached", 1, func() Call { return sleeper(0) }, 10, 10, 10 * time.Second, StopPrecision, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Sampling{MinDuration: 20 * time.Millisecond, MinSamples: 10, MaxDuration: tc.max, Precision: tc.precision, PrecisionP99: tc.p99}
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
				// The interval was checked when it stopped (TestRelCI
				// checks the interval itself).
				if r.Elapsed >= tc.max {
					t.Errorf("ran to the max duration (%s) although precise", r.Elapsed)
				}
			case StopMax:
				if r.Elapsed < tc.max {
					t.Errorf("elapsed %s < max %s", r.Elapsed, tc.max)
				}
			}
			if known := !math.IsInf(r.P99RelCI, 1); known != tc.p99Known && tc.want != StopMin {
				t.Errorf("p99 ci %v with %d calls, want known %v", r.P99RelCI, r.Count, tc.p99Known)
			}
			if math.IsNaN(r.P50RelCI) || r.P50RelCI < 0 {
				t.Errorf("p50 ci %v", r.P50RelCI)
			}
		})
	}
}

func TestRelCI(t *testing.T) {
	h := hdrhistogram.New(histLowest, histHighest, histDigits)
	// 1..1000 µs, one call each: p50 = 500 µs, its 95% CI the 469th to
	// 532nd values, a half-width of 31.5 µs.
	for v := int64(1); v <= 1000; v++ {
		_ = h.RecordValue(v * 1000)
	}
	if got, want := relCI(h, 0.5), 31.5/500; math.Abs(got-want) > 0.002 {
		t.Errorf("p50 relative ci %.4f, want %.4f", got, want)
	}
	// 1000 values bracket p99 (about 560 are needed).
	if got := relCI(h, 0.99); math.IsInf(got, 1) || got > 0.05 {
		t.Errorf("p99 relative ci of 1000 values %v, want finite and small", got)
	}
	small := hdrhistogram.New(histLowest, histHighest, histDigits)
	for v := int64(1); v <= 100; v++ {
		_ = small.RecordValue(v)
	}
	if got := relCI(small, 0.99); !math.IsInf(got, 1) {
		t.Errorf("p99 of 100 values: %v, want +Inf", got)
	}
	if got := relCI(hdrhistogram.New(histLowest, histHighest, histDigits), 0.5); !math.IsInf(got, 1) {
		t.Errorf("empty histogram: %v, want +Inf", got)
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
