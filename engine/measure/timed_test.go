package measure

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a driver of known service time: each call sleeps service
// (stall for the call numbered stallAt) and records when it started and
// ended, so the test knows every call's true latency.
type recorder struct {
	mu          sync.Mutex
	service     time.Duration
	stallAt     int
	stall       time.Duration
	starts, end []time.Time
}

func (r *recorder) call(ctx context.Context) error {
	r.mu.Lock()
	n := len(r.starts)
	r.starts = append(r.starts, time.Now())
	r.mu.Unlock()
	d := r.service
	if n == r.stallAt {
		d = r.stall
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	r.end = append(r.end, time.Now())
	r.mu.Unlock()
	return nil
}

// schedSlack: see within.
const schedSlack = 100 * time.Microsecond

// nearestRank is the ground-truth percentile of sorted values.
func nearestRank(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// within allows tol of want, and at least schedSlack: the recorder notes
// a call's end just before it returns, the engine just after, and on a
// loaded machine the thread can wait tens of microseconds in between.
// Coordinated omission shows as milliseconds, far beyond it.
func within(t *testing.T, what string, got, want time.Duration, tol float64) {
	t.Helper()
	if d := time.Duration(math.Abs(float64(got - want))); d <= schedSlack {
		return
	}
	if diff := math.Abs(float64(got-want)) / float64(want); diff > tol {
		t.Errorf("%s: got %s, ground truth %s (%.2f%% off, tolerance %.0f%%)", what, got, want, diff*100, tol*100)
	}
}

// TestRunTimedOpenLoopStall: one client at 200 calls/s, 1 ms per call and
// one call stalled 300 ms. The calls due during the stall wait for it;
// measured from their intended starts they carry the stall, and the
// reported percentiles match the ground truth (each call's end minus its
// intended start) within 1%.
func TestRunTimedOpenLoopStall(t *testing.T) {
	const rate = 200.0
	rec := &recorder{service: time.Millisecond, stallAt: 100, stall: 300 * time.Millisecond}
	var began time.Time
	timedBegan = func(t time.Time) { began = t }
	defer func() { timedBegan = nil }()
	res, err := RunTimed(context.Background(), Timed{Duration: 2 * time.Second, LateBound: 10 * time.Millisecond},
		[]TimedStream{{Op: "read", Calls: []Call{rec.call}, Rate: rate}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	interval := 1e9 / rate
	if len(rec.end) != 400 || r.Count != 400 {
		t.Fatalf("calls: recorded %d, reported %d, want the 400 due in 2 s", len(rec.end), r.Count)
	}
	truth := make([]time.Duration, len(rec.end))
	var late int64
	for i := range rec.end {
		intended := began.Add(time.Duration(float64(i) * interval))
		truth[i] = rec.end[i].Sub(intended)
		if rec.starts[i].Sub(intended) > 10*time.Millisecond {
			late++
		}
	}
	slices.Sort(truth)
	within(t, "p50", r.P50, nearestRank(truth, 50), 0.01)
	within(t, "p95", r.P95, nearestRank(truth, 95), 0.01)
	within(t, "p99", r.P99, nearestRank(truth, 99), 0.01)
	within(t, "max", r.Max, truth[len(truth)-1], 0.01)
	// Measured from the actual start, p99 would be the service time.
	if r.P99 < 200*time.Millisecond {
		t.Errorf("p99 %s: the 300 ms stall does not show", r.P99)
	}
	// About 58 calls were due during the stall, beyond the 10 ms bound.
	if r.Late != late || late < 50 {
		t.Errorf("late %d, ground truth %d (want about 58)", r.Late, late)
	}
	if r.Dropped != 0 || r.Errors != 0 {
		t.Errorf("dropped %d errors %d, want 0", r.Dropped, r.Errors)
	}
	if math.Abs(r.Throughput-rate)/rate > 0.01 {
		t.Errorf("throughput %.1f, want %.0f", r.Throughput, rate)
	}
	if r.Hist == nil || r.Hist.TotalCount() != r.Count {
		t.Errorf("histogram holds %v calls, want %d", r.Hist, r.Count)
	}
}

// TestRunTimedDropped: a call blocked past the end leaves the calls due
// after it never started: counted as dropped, not as latency.
func TestRunTimedDropped(t *testing.T) {
	rec := &recorder{service: time.Millisecond, stallAt: 0, stall: 10 * time.Second}
	res, err := RunTimed(context.Background(), Timed{Duration: 200 * time.Millisecond, LateBound: time.Millisecond, Grace: 100 * time.Millisecond},
		[]TimedStream{{Op: "read", Calls: []Call{rec.call}, Rate: 100}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	// 20 calls due; the first never ends (cancelled after the grace), the
	// 19 others never start.
	if r.Dropped != 19 || r.Count != 0 {
		t.Errorf("dropped %d count %d, want 19 and 0", r.Dropped, r.Count)
	}
}

// TestRunTimedWindows: closed- and open-loop streams side by side, cut
// into windows that add up to the totals.
func TestRunTimedWindows(t *testing.T) {
	var windows [][]Window
	res, err := RunTimed(context.Background(), Timed{Warmup: 2, Duration: 500 * time.Millisecond, Window: 100 * time.Millisecond},
		[]TimedStream{
			{Op: "read", Calls: clients(2, func(int) Call { return sleeper(time.Millisecond) })},
			{Op: "write", Calls: clients(1, func(int) Call { return sleeper(time.Millisecond) }), Rate: 100},
		}, func(ws []Window) { windows = append(windows, ws) })
	if err != nil {
		t.Fatal(err)
	}
	if len(windows) != 5 {
		t.Fatalf("%d windows, want 5", len(windows))
	}
	for i, r := range res {
		var n int64
		for k, ws := range windows {
			w := ws[i]
			if w.Index != k || w.Start != time.Duration(k)*100*time.Millisecond || w.End != w.Start+100*time.Millisecond {
				t.Errorf("stream %d window %d: index %d [%s, %s)", i, k, w.Index, w.Start, w.End)
			}
			if w.Count > 0 {
				checkOrdered(t, w.Result)
			}
			n += w.Count
		}
		if n != r.Count || r.Hist.TotalCount() != r.Count {
			t.Errorf("stream %d: windows hold %d calls, histogram %d, total %d", i, n, r.Hist.TotalCount(), r.Count)
		}
		checkOrdered(t, r)
	}
	if w := res[1]; w.Count != 50 || w.Rate != 100 {
		t.Errorf("open-loop stream: %d calls at rate %v, want 50 at 100", w.Count, w.Rate)
	}
}

func TestRunTimedInterrupted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := RunTimed(ctx, Timed{Duration: time.Minute, Window: time.Second},
		[]TimedStream{{Op: "read", Calls: clients(1, func(int) Call { return sleeper(time.Millisecond) })}}, nil)
	if err == nil || len(res) != 1 || res[0].Count == 0 {
		t.Fatalf("want partial results and an error, got %v, %v", res, err)
	}
	if res[0].Elapsed > 10*time.Second {
		t.Errorf("elapsed %s after an interruption at 100 ms", res[0].Elapsed)
	}
}

func TestRunTimedInvalid(t *testing.T) {
	one := []TimedStream{{Op: "read", Calls: []Call{sleeper(0)}}}
	for name, tc := range map[string]struct {
		t  Timed
		st []TimedStream
	}{
		"no duration":   {Timed{}, one},
		"no streams":    {Timed{Duration: time.Second}, nil},
		"no clients":    {Timed{Duration: time.Second}, []TimedStream{{Op: "read"}}},
		"negative rate": {Timed{Duration: time.Second}, []TimedStream{{Op: "read", Calls: []Call{sleeper(0)}, Rate: -1}}},
	} {
		if _, err := RunTimed(context.Background(), tc.t, tc.st, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// BenchmarkCallOverhead compares the engine's cost per call of a no-op
// call: RunPoint's hot path against RunTimed's (a mutex and a histogram
// per call, windows swapped every 100 ms), one client. Reported as
// ns/call.
func BenchmarkCallOverhead(b *testing.B) {
	noop := func(context.Context) error { return nil }
	b.Run("RunPoint", func(b *testing.B) {
		res, err := RunPoint(context.Background(), Sampling{MinDuration: time.Second, MaxDuration: time.Second}, []Stream{{Op: "read", Calls: []Call{noop}}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res[0].Elapsed)/float64(res[0].Count), "ns/call")
	})
	b.Run("RunTimed-windows", func(b *testing.B) {
		res, err := RunTimed(context.Background(), Timed{Duration: time.Second, Window: 100 * time.Millisecond}, []TimedStream{{Op: "read", Calls: []Call{noop}}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res[0].Elapsed)/float64(res[0].Count), "ns/call")
	})
}

// The barrier runs after every client's warm-up and before the clock:
// its wait is not measured, and its refusal ends the run unmeasured.
func TestRunTimedBarrier(t *testing.T) {
	var warmed atomic.Int64
	call := func(ctx context.Context) error { warmed.Add(1); time.Sleep(time.Millisecond); return nil }
	tm := Timed{Warmup: 3, Duration: 100 * time.Millisecond, Barrier: func(context.Context) error {
		if n := warmed.Load(); n != 6 {
			t.Errorf("barrier after %d calls, want the 6 warm-up calls", n)
		}
		time.Sleep(200 * time.Millisecond)
		return nil
	}}
	res, err := RunTimed(context.Background(), tm, []TimedStream{{Op: "read", Calls: []Call{call, call}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Elapsed != 100*time.Millisecond || res[0].Count == 0 || res[0].Count > 2*100 {
		t.Errorf("elapsed %s, %d calls: the barrier's wait must stay out of the window", res[0].Elapsed, res[0].Count)
	}
	tm.Barrier = func(context.Context) error { return errors.New("no start") }
	if res, err := RunTimed(context.Background(), tm, []TimedStream{{Op: "read", Calls: []Call{call}}}, nil); err == nil || res != nil {
		t.Errorf("a refused barrier: %v, %v", res, err)
	}
}

// An offset delays an open-loop stream's schedule: two streams at half
// the rate, the second offset by half their interval, are due as one
// stream at the whole rate (worker processes sharing a stream).
func TestRunTimedOffset(t *testing.T) {
	var began time.Time
	timedBegan = func(t time.Time) { began = t }
	defer func() { timedBegan = nil }()
	var mu sync.Mutex
	var starts []time.Duration
	call := func(context.Context) error {
		mu.Lock()
		starts = append(starts, time.Since(began))
		mu.Unlock()
		return nil
	}
	res, err := RunTimed(context.Background(), Timed{Duration: 200 * time.Millisecond},
		[]TimedStream{{Op: "a", Calls: []Call{call}, Rate: 50}, {Op: "b", Calls: []Call{call}, Rate: 50, Offset: 10 * time.Millisecond}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Count != 10 || res[1].Count != 10 || res[0].Dropped+res[1].Dropped != 0 {
		t.Fatalf("calls %d and %d, dropped %d and %d: want 10 and 10", res[0].Count, res[1].Count, res[0].Dropped, res[1].Dropped)
	}
	slices.Sort(starts)
	for i, s := range starts {
		// Due every 10 ms; a timer fires late, never early.
		if due := time.Duration(i) * 10 * time.Millisecond; s < due {
			t.Errorf("call %d started at %s, due at %s", i, s, due)
		}
	}
	if _, err := RunTimed(context.Background(), Timed{Duration: time.Second},
		[]TimedStream{{Op: "a", Calls: []Call{call}, Rate: 1, Offset: -time.Millisecond}}, nil); err == nil {
		t.Error("a negative offset must be refused")
	}
}
