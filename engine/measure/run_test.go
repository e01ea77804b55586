package measure

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Bounds below are one-sided where timing could flake: a sleep of d never
// returns before d, a point never stops before its minimums.

func sleeper(d time.Duration) Call {
	return func(context.Context) error { time.Sleep(d); return nil }
}

func clients(n int, mk func(i int) Call) []Call {
	cs := make([]Call, n)
	for i := range cs {
		cs[i] = mk(i)
	}
	return cs
}

func checkOrdered(t *testing.T, r Result) {
	t.Helper()
	if !(r.P50 <= r.P95 && r.P95 <= r.P99 && r.P99 <= r.Max) {
		t.Errorf("percentiles out of order: p50 %s p95 %s p99 %s max %s", r.P50, r.P95, r.P99, r.Max)
	}
}

func TestRunPointLatencies(t *testing.T) {
	tests := []struct {
		name    string
		clients int
		sleep   time.Duration
		s       Sampling
	}{
		{"one client 2ms", 1, 2 * time.Millisecond, Sampling{Warmup: 2, MinDuration: 30 * time.Millisecond, MinSamples: 10, MaxDuration: 20 * time.Second}},
		{"four clients 1ms", 4, time.Millisecond, Sampling{Warmup: 1, MinDuration: 20 * time.Millisecond, MinSamples: 40, MaxDuration: 20 * time.Second}},
		{"no warm-up", 2, 3 * time.Millisecond, Sampling{MinSamples: 5, MaxDuration: 20 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunPoint(context.Background(), tc.s, []Stream{{Op: "read", Calls: clients(tc.clients, func(int) Call { return sleeper(tc.sleep) })}})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Op != "read" || r.Clients != tc.clients {
				t.Errorf("op %q clients %d, want read %d", r.Op, r.Clients, tc.clients)
			}
			if r.Count < int64(tc.s.MinSamples) {
				t.Errorf("count %d < min samples %d", r.Count, tc.s.MinSamples)
			}
			if r.Elapsed < tc.s.MinDuration {
				t.Errorf("elapsed %s < min duration %s", r.Elapsed, tc.s.MinDuration)
			}
			if r.P50 < tc.sleep {
				t.Errorf("p50 %s < sleep %s", r.P50, tc.sleep)
			}
			checkOrdered(t, r)
			if r.Errors != 0 || r.Timeouts != 0 || r.FirstError != "" {
				t.Errorf("errors %d timeouts %d %q", r.Errors, r.Timeouts, r.FirstError)
			}
			// Each client finishes at most one call per sleep of wall time.
			limit := float64(tc.clients) / tc.sleep.Seconds()
			if r.Throughput <= 0 || r.Throughput > limit {
				t.Errorf("throughput %.1f outside (0, %.1f]", r.Throughput, limit)
			}
			if want := float64(r.Count) / r.Elapsed.Seconds(); r.Throughput != want {
				t.Errorf("throughput %.3f, want count/elapsed %.3f", r.Throughput, want)
			}
		})
	}
}

func TestRunPointStopsAtMaxDuration(t *testing.T) {
	defer func(g time.Duration) { minStopGrace = g }(minStopGrace)
	minStopGrace = 200 * time.Millisecond
	tests := []struct {
		name  string
		call  Call
		probe time.Duration
	}{
		{"short calls", sleeper(time.Millisecond), 0},
		// Calls in flight at the stop finish (or are cut) but do not count.
		{"slow call finishes after the stop", sleeper(150 * time.Millisecond), 0},
		{"call blocking on ctx, cut at the ceiling", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, 150 * time.Millisecond},
		{"call blocking on ctx, cancelled after the grace", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Sampling{MinDuration: time.Hour, MinSamples: 1 << 30, MaxDuration: 100 * time.Millisecond, Probe: tc.probe}
			t0 := time.Now()
			res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{tc.call, tc.call}}})
			if err != nil {
				t.Fatal(err)
			}
			if wall := time.Since(t0); wall > 5*time.Second {
				t.Errorf("RunPoint took %s with max duration %s", wall, s.MaxDuration)
			}
			if res[0].Elapsed < s.MaxDuration {
				t.Errorf("elapsed %s < max duration %s", res[0].Elapsed, s.MaxDuration)
			}
			if res[0].Errors != 0 || res[0].Timeouts != 0 {
				t.Errorf("%d errors (%s): calls ended by the stop must not count", res[0].Errors, res[0].FirstError)
			}
			if res[0].StoppedBy != StopMax {
				t.Errorf("stopped by %q, want %q", res[0].StoppedBy, StopMax)
			}
		})
	}
}

// At the stop, calls in flight are waited for, not cancelled: a database
// would get a cancel request at the end of every point.
func TestRunPointDrainsWithoutCancelling(t *testing.T) {
	var cancelled atomic.Int64
	call := func(ctx context.Context) error {
		select {
		case <-time.After(20 * time.Millisecond):
			return nil
		case <-ctx.Done():
			cancelled.Add(1)
			return ctx.Err()
		}
	}
	s := Sampling{MinDuration: 50 * time.Millisecond, MaxDuration: time.Second, Probe: time.Second}
	if _, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{call, call, call}}}); err != nil {
		t.Fatal(err)
	}
	if n := cancelled.Load(); n != 0 {
		t.Errorf("%d calls cancelled at the stop", n)
	}
}

// flaky fails every odd call of its client, numbering warm-up calls too.
func flaky() Call {
	var n int
	return func(context.Context) error {
		n++
		if n%2 == 0 {
			return fmt.Errorf("boom %d", n)
		}
		return nil
	}
}

func TestRunPointErrors(t *testing.T) {
	tests := []struct {
		name      string
		call      func() Call
		warmup    int
		wantFirst string
		wantOK    bool
	}{
		// Warm-up calls 1..3 include the failing call 2; the first counted error is call 4.
		{"every other call fails", flaky, 3, "boom 4", true},
		{"every call fails", func() Call { return func(context.Context) error { return errors.New("down") } }, 1, "down", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Sampling{Warmup: tc.warmup, MinSamples: 200, MaxDuration: 20 * time.Second}
			res, err := RunPoint(context.Background(), s, []Stream{{Op: "write", Calls: []Call{tc.call()}}})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			// Failed calls count towards MinSamples, so an all-failing
			// stream still stops early.
			if r.Count+r.Errors < int64(s.MinSamples) {
				t.Errorf("count %d + errors %d < min samples %d", r.Count, r.Errors, s.MinSamples)
			}
			if r.FirstError != tc.wantFirst {
				t.Errorf("first error %q, want %q", r.FirstError, tc.wantFirst)
			}
			if tc.wantOK {
				if d := r.Count - r.Errors; d < -1 || d > 1 {
					t.Errorf("count %d vs errors %d: want every other call", r.Count, r.Errors)
				}
				checkOrdered(t, r)
			} else {
				if r.Count != 0 || r.P50 != 0 || r.Max != 0 || r.Throughput != 0 {
					t.Errorf("all failed but count %d p50 %s max %s throughput %f", r.Count, r.P50, r.Max, r.Throughput)
				}
			}
			if r.Timeouts != 0 {
				t.Errorf("timeouts %d", r.Timeouts)
			}
		})
	}
}

func TestRunPointCeiling(t *testing.T) {
	const probe = 100 * time.Millisecond
	var causes sync.Map
	var afterCut atomic.Int64 // successful calls made after a cut
	mk := func(int) Call {
		var n int
		cut := false
		return func(ctx context.Context) error {
			n++
			if n%3 == 0 { // hangs until cancelled
				<-ctx.Done()
				causes.Store(context.Cause(ctx), true)
				cut = true
				return ctx.Err()
			}
			time.Sleep(time.Millisecond)
			if err := ctx.Err(); err != nil {
				return err
			}
			if cut {
				afterCut.Add(1)
			}
			return nil
		}
	}
	s := Sampling{Warmup: 1, MinDuration: 500 * time.Millisecond, MinSamples: 4, MaxDuration: 20 * time.Second, Probe: probe}
	res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: clients(2, mk)}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Timeouts < 1 {
		t.Fatalf("no timeouts: %+v", r)
	}
	if r.Errors != r.Timeouts {
		t.Errorf("errors %d, want the %d timeouts (%s)", r.Errors, r.Timeouts, r.FirstError)
	}
	if !strings.Contains(r.FirstError, ErrCeiling.Error()) {
		t.Errorf("first error %q does not name the ceiling", r.FirstError)
	}
	if afterCut.Load() == 0 {
		t.Errorf("no successful call after a cut: clients did not go on with a fresh context")
	}
	if r.Max >= probe {
		t.Errorf("max %s >= probe %s: a cut call was recorded", r.Max, probe)
	}
	if _, ok := causes.Load(ErrCeiling); !ok {
		t.Errorf("calls never saw ErrCeiling as the cause")
	}
}

func TestRunPointWarmupNotCounted(t *testing.T) {
	const warmup = 5
	var total atomic.Int64
	call := func(context.Context) error {
		if total.Add(1) <= warmup {
			return errors.New("warm-up failure")
		}
		return nil
	}
	s := Sampling{Warmup: warmup, MinSamples: 50, MaxDuration: 20 * time.Second}
	res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{call}}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Errors != 0 {
		t.Errorf("errors %d (%s): warm-up failures counted", r.Errors, r.FirstError)
	}
	// At most one call, in flight at the stop, is neither warm-up nor counted.
	if got := total.Load() - warmup; r.Count != got && r.Count != got-1 {
		t.Errorf("count %d, want %d calls after warm-up (or one less)", r.Count, got)
	}
}

func TestRunPointBarrier(t *testing.T) {
	const warmup = 2
	var slowDone atomic.Int64 // when the slow client finished its warm-up
	var early atomic.Int64    // measured calls that started before that
	origin := time.Now()
	mk := func(i int) Call {
		var n int
		return func(context.Context) error {
			n++
			if n <= warmup {
				if i == 0 {
					time.Sleep(50 * time.Millisecond)
					if n == warmup {
						slowDone.Store(int64(time.Since(origin)))
					}
				}
				return nil
			}
			if d := slowDone.Load(); d == 0 || int64(time.Since(origin)) < d {
				early.Add(1)
			}
			time.Sleep(time.Millisecond)
			return nil
		}
	}
	s := Sampling{Warmup: warmup, MinSamples: 20, MaxDuration: 20 * time.Second}
	if _, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: clients(3, mk)}}); err != nil {
		t.Fatal(err)
	}
	if n := early.Load(); n != 0 {
		t.Errorf("%d measured calls started before the slowest client's warm-up ended", n)
	}
}

func TestRunPointStreams(t *testing.T) {
	s := Sampling{Warmup: 1, MinDuration: 50 * time.Millisecond, MinSamples: 30, MaxDuration: 20 * time.Second}
	streams := []Stream{
		{Op: "read", Calls: clients(3, func(int) Call { return sleeper(time.Millisecond) })},
		{Op: "write", Calls: clients(1, func(int) Call { return sleeper(4 * time.Millisecond) })},
	}
	res, err := RunPoint(context.Background(), s, streams)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want 2", len(res))
	}
	for i, want := range []struct {
		op      string
		clients int
		sleep   time.Duration
	}{{"read", 3, time.Millisecond}, {"write", 1, 4 * time.Millisecond}} {
		r := res[i]
		if r.Op != want.op || r.Clients != want.clients {
			t.Errorf("result %d: %s/%d, want %s/%d", i, r.Op, r.Clients, want.op, want.clients)
		}
		if r.Count == 0 || r.P50 < want.sleep {
			t.Errorf("%s: count %d p50 %s, want > 0 and >= %s", r.Op, r.Count, r.P50, want.sleep)
		}
		if r.Elapsed != res[0].Elapsed {
			t.Errorf("%s elapsed %s != %s: streams must stop together", r.Op, r.Elapsed, res[0].Elapsed)
		}
	}
	// The first stream governs the minimum.
	if res[0].Count < int64(s.MinSamples) {
		t.Errorf("read count %d < %d", res[0].Count, s.MinSamples)
	}
}

func TestRunPointCancelled(t *testing.T) {
	for _, during := range []string{"warm-up", "measurement"} {
		t.Run(during, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			s := Sampling{MinDuration: time.Hour, MaxDuration: time.Hour}
			if during == "warm-up" {
				s.Warmup = 1 << 30
			}
			call := func(ctx context.Context) error {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(time.Millisecond):
					return nil
				}
			}
			t0 := time.Now()
			res, err := RunPoint(ctx, s, []Stream{{Op: "read", Calls: []Call{call, call}}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if wall := time.Since(t0); wall > 5*time.Second {
				t.Errorf("returned after %s", wall)
			}
			if len(res) != 1 || res[0].Errors != 0 {
				t.Errorf("results %+v: want one, with no errors from the cancellation", res)
			}
		})
	}
}

func TestRunPointStuckCall(t *testing.T) {
	defer func(g time.Duration) { minStopGrace = g }(minStopGrace)
	minStopGrace = 50 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	stuck := func(context.Context) error { <-release; return nil }
	s := Sampling{MaxDuration: 20 * time.Millisecond}
	_, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{stuck}}})
	if err == nil || !strings.Contains(err.Error(), "ignores its context") {
		t.Fatalf("err %v, want a stuck-call error", err)
	}
}

func TestRunPointPanic(t *testing.T) {
	var n atomic.Int64
	bad := func(context.Context) error {
		if n.Add(1) == 3 {
			panic("driver bug")
		}
		return nil
	}
	s := Sampling{Warmup: 1, MinSamples: 100, MaxDuration: 20 * time.Second}
	res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{sleeper(time.Microsecond), bad}}})
	if err == nil || !strings.Contains(err.Error(), "driver bug") {
		t.Fatalf("err %v, want the panic", err)
	}
	if res[0].Errors != 1 || !strings.Contains(res[0].FirstError, "panic: driver bug") || res[0].Count < 99 {
		t.Errorf("result %+v: want the other client's calls and the panic as one error", res[0])
	}
}

func TestRunPointInvalid(t *testing.T) {
	ok := sleeper(0)
	good := Sampling{MaxDuration: time.Second}
	tests := []struct {
		name    string
		s       Sampling
		streams []Stream
		want    string
	}{
		{"no streams", good, nil, "no streams"},
		{"no clients", good, []Stream{{Op: "read"}}, "no clients"},
		{"nil call", good, []Stream{{Op: "read", Calls: []Call{ok, nil}}}, "client 1: nil call"},
		{"no max duration", Sampling{}, []Stream{{Op: "read", Calls: []Call{ok}}}, "max duration"},
		{"negative warm-up", Sampling{Warmup: -1, MaxDuration: time.Second}, []Stream{{Op: "read", Calls: []Call{ok}}}, "warmup"},
		{"negative probe", Sampling{Probe: -1, MaxDuration: time.Second}, []Stream{{Op: "read", Calls: []Call{ok}}}, "probe"},
		{"negative precision", Sampling{Precision: -0.1, MaxDuration: time.Second}, []Stream{{Op: "read", Calls: []Call{ok}}}, "precision"},
		{"p99 precision alone", Sampling{PrecisionP99: 0.1, MaxDuration: time.Second}, []Stream{{Op: "read", Calls: []Call{ok}}}, "p99 precision needs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RunPoint(context.Background(), tc.s, tc.streams)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	boom := errors.New("boom")
	hang := func(ctx context.Context) error { <-ctx.Done(); return context.Cause(ctx) }
	tests := []struct {
		name     string
		call     Call
		ceiling  time.Duration
		exceeded bool
		err      error
		minTime  time.Duration
	}{
		{"fast", sleeper(time.Millisecond), time.Second, false, nil, time.Millisecond},
		{"error", func(context.Context) error { return boom }, time.Second, false, boom, 0},
		{"cut at the ceiling", hang, 20 * time.Millisecond, true, ErrCeiling, 20 * time.Millisecond},
		{"ignores ctx but too slow", sleeper(30 * time.Millisecond), 10 * time.Millisecond, true, nil, 30 * time.Millisecond},
		{"no ceiling", sleeper(time.Millisecond), 0, false, nil, time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el, ex, err := Probe(context.Background(), tc.call, tc.ceiling)
			if ex != tc.exceeded || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Errorf("exceeded %v err %v, want %v %v", ex, err, tc.exceeded, tc.err)
			}
			if el < tc.minTime {
				t.Errorf("elapsed %s < %s", el, tc.minTime)
			}
		})
	}
	if _, _, err := Probe(context.Background(), nil, time.Second); err == nil {
		t.Error("nil call: no error")
	}
}

// TestLostClientIsOneErrorAndEndsThePoint: a call that reports its
// connection lost counts one error for its client, the client makes no more
// calls, and the point ends early with the reason, long before MaxDuration.
func TestLostClientIsOneErrorAndEndsThePoint(t *testing.T) {
	const n = 4
	var calls atomic.Int64
	var broken atomic.Bool
	lost := fmt.Errorf("%w: server closed the connection", ErrClientLost)
	mk := func(int) Call {
		return func(context.Context) error {
			calls.Add(1)
			if broken.Load() {
				return lost
			}
			time.Sleep(time.Millisecond)
			return nil
		}
	}
	go func() { time.Sleep(50 * time.Millisecond); broken.Store(true) }()
	s := Sampling{Warmup: 1, MinDuration: 10 * time.Second, MinSamples: 1, MaxDuration: 20 * time.Second}
	start := time.Now()
	res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: clients(n, mk)}})
	if !errors.Is(err, ErrClientLost) || !strings.Contains(err.Error(), "server closed the connection") {
		t.Fatalf("err = %v, want the lost connection as the reason", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the point ran %s after its clients were lost", d)
	}
	if len(res) != 1 {
		t.Fatalf("%d results, want the partial one", len(res))
	}
	r := res[0]
	if r.Errors < 1 || r.Errors > n {
		t.Errorf("%d errors for %d lost clients, want one per client at most", r.Errors, n)
	}
	if r.Count == 0 {
		t.Errorf("the calls measured before the loss were dropped")
	}
	if !strings.Contains(r.FirstError, "server closed the connection") {
		t.Errorf("first error %q", r.FirstError)
	}
}

// TestRunNow: the loop's monotonic-only clock reads what r.ns(time.Now())
// reads, on the same origin.
func TestRunNow(t *testing.T) {
	r := &run{origin: time.Now().Add(-time.Hour)}
	for range 1000 {
		before := r.ns(time.Now())
		now := r.now()
		after := r.ns(time.Now())
		if now < before || now > after || now <= 0 {
			t.Fatalf("now %d outside [%d, %d]", now, before, after)
		}
	}
}

// The process's CPU during the window is measured: a client spinning on
// the CPU uses many times what one sleeping uses. The spinner's share is
// compared with the sleeper's, not with a fixed bound, since a busy
// machine gives the spinner only its share of the cores.
func TestRunPointClientCPU(t *testing.T) {
	spin := func(context.Context) error {
		for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
		}
		return nil
	}
	s := Sampling{MinDuration: 300 * time.Millisecond, MaxDuration: time.Second, MinSamples: 1, Reps: 1}
	share := map[string]float64{}
	for _, tc := range []struct {
		name string
		call Call
		max  float64 // bound of CPU over elapsed: never more than every core
	}{
		{"spinning", spin, 64},
		{"sleeping", sleeper(5 * time.Millisecond), 0.5},
	} {
		res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: []Call{tc.call}}})
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		if r.ClientCPU <= 0 {
			t.Fatalf("%s: client CPU %s", tc.name, r.ClientCPU)
		}
		f := float64(r.ClientCPU) / float64(r.Elapsed)
		if f > tc.max {
			t.Errorf("%s: client CPU %s over %s elapsed: %.2f, want at most %.2f", tc.name, r.ClientCPU, r.Elapsed, f, tc.max)
		}
		share[tc.name] = f
	}
	if share["spinning"] < 0.02 || share["spinning"] < 3*share["sleeping"] {
		t.Errorf("client CPU share spinning %.3f, sleeping %.3f: want the spinner's at least 0.02 and three times the sleeper's", share["spinning"], share["sleeping"])
	}
}
