package measure

import (
	"context"
	"errors"
	"testing"
	"time"
)

// cycler is a client of a stream of operations that runs operation
// (call number mod n): op 0 sleeps short, op 1 longer, op n-1 fails
// when fail is set.
func cycler(n int, fail bool) OpCall {
	calls := 0
	return func(ctx context.Context) (int, error) {
		op := calls % n
		calls++
		switch {
		case fail && op == n-1:
			return op, errors.New("boom")
		case op == 1:
			time.Sleep(2 * time.Millisecond)
		default:
			time.Sleep(200 * time.Microsecond)
		}
		return op, nil
	}
}

func TestRunPointOperations(t *testing.T) {
	s := Sampling{Warmup: 2, MinDuration: 50 * time.Millisecond, MinSamples: 30, MaxDuration: 20 * time.Second}
	st := Stream{Op: "read", Ops: []string{"fast", "slow", "bad"}, OpCalls: []OpCall{cycler(3, true), cycler(3, true)}}
	res, err := RunPoint(context.Background(), s, []Stream{st})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Ops) != 3 {
		t.Fatalf("%d operation results, want 3", len(r.Ops))
	}
	var count, errs int64
	for i, o := range r.Ops {
		if o.Op != st.Ops[i] || o.Clients != 2 {
			t.Errorf("op %d: %q clients %d, want %q 2", i, o.Op, o.Clients, st.Ops[i])
		}
		count += o.Count
		errs += o.Errors
	}
	if count != r.Count || errs != r.Errors || r.Hist.TotalCount() != r.Count {
		t.Errorf("total %d calls %d errors (hist %d), operations sum to %d and %d", r.Count, r.Errors, r.Hist.TotalCount(), count, errs)
	}
	if r.Ops[2].Count != 0 || r.Ops[2].Errors == 0 || r.Ops[2].FirstError != "boom" {
		t.Errorf("the failing operation: %d ok, %d errors, first %q", r.Ops[2].Count, r.Ops[2].Errors, r.Ops[2].FirstError)
	}
	if r.Ops[0].Errors != 0 || r.Ops[1].Errors != 0 {
		t.Errorf("errors of the other operations: %d, %d", r.Ops[0].Errors, r.Ops[1].Errors)
	}
	if !(r.Ops[1].P50 >= 2*time.Millisecond && r.Ops[0].P50 < 2*time.Millisecond) {
		t.Errorf("p50 fast %s slow %s: each operation's own latency expected", r.Ops[0].P50, r.Ops[1].P50)
	}
	if r.FirstError != "bad: boom" {
		t.Errorf("total's first error %q, want it to name the operation", r.FirstError)
	}
	// Expand: the operations, then the total.
	ex := Expand(res)
	want := []string{"fast", "slow", "bad", OpTotal}
	if len(ex) != len(want) {
		t.Fatalf("Expand: %d results, want %d", len(ex), len(want))
	}
	for i, w := range want {
		if ex[i].Op != w {
			t.Errorf("Expand[%d] = %q, want %q", i, ex[i].Op, w)
		}
	}
	if ex[3].Count != r.Count || len(ex[3].Ops) != 0 {
		t.Errorf("expanded total: %d calls, %d ops", ex[3].Count, len(ex[3].Ops))
	}
	// A stream without operations is kept as it is.
	plain := []Result{{Op: "read", Count: 3}}
	if got := Expand(plain); len(got) != 1 || got[0].Op != "read" {
		t.Errorf("Expand of a plain stream: %+v", got)
	}
}

func TestRunPointOperationCeiling(t *testing.T) {
	// Operation 1 blocks until cut: the timeout is its own.
	calls := 0
	call := func(ctx context.Context) (int, error) {
		op := calls % 2
		calls++
		if op == 1 {
			<-ctx.Done()
			return op, ctx.Err()
		}
		return op, nil
	}
	s := Sampling{MinDuration: 60 * time.Millisecond, MinSamples: 1, MaxDuration: 20 * time.Second, Probe: 20 * time.Millisecond}
	res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Ops: []string{"ok", "stuck"}, OpCalls: []OpCall{call}}})
	if err != nil {
		t.Fatal(err)
	}
	ok, stuck := res[0].Ops[0], res[0].Ops[1]
	if stuck.Timeouts == 0 || ok.Timeouts != 0 {
		t.Errorf("timeouts: ok %d, stuck %d; the cut call's operation takes it", ok.Timeouts, stuck.Timeouts)
	}
	if res[0].Timeouts != stuck.Timeouts {
		t.Errorf("total timeouts %d, want %d", res[0].Timeouts, stuck.Timeouts)
	}
}

func TestRunTimedOperations(t *testing.T) {
	for _, rate := range []float64{0, 400} {
		tm := Timed{Duration: 150 * time.Millisecond, Window: 50 * time.Millisecond, LateBound: 50 * time.Millisecond}
		st := TimedStream{Op: "read", Rate: rate, Ops: []string{"fast", "slow", "bad"}, OpCalls: []OpCall{cycler(3, true), cycler(3, true)}}
		var windows [][]Window
		res, err := RunTimed(context.Background(), tm, []TimedStream{st}, func(ws []Window) { windows = append(windows, ws) })
		if err != nil {
			t.Fatal(err)
		}
		r := res[0]
		if len(r.Ops) != 3 {
			t.Fatalf("rate %v: %d operation results, want 3", rate, len(r.Ops))
		}
		var count, errs int64
		for _, o := range r.Ops {
			count += o.Count
			errs += o.Errors
		}
		if count != r.Count || errs != r.Errors || count == 0 {
			t.Errorf("rate %v: total %d/%d, operations %d/%d", rate, r.Count, r.Errors, count, errs)
		}
		if r.Ops[2].Count != 0 || r.Ops[2].Errors == 0 {
			t.Errorf("rate %v: failing op %d ok %d errors", rate, r.Ops[2].Count, r.Ops[2].Errors)
		}
		var wcount int64
		for _, ws := range windows {
			if len(ws[0].Ops) != 3 {
				t.Fatalf("rate %v: a window with %d operations", rate, len(ws[0].Ops))
			}
			for _, o := range ws[0].Ops {
				wcount += o.Count
			}
		}
		if wcount != r.Count {
			t.Errorf("rate %v: windows hold %d calls, the run %d", rate, wcount, r.Count)
		}
		if rate > 0 && r.Rate != rate {
			t.Errorf("total rate %v, want %v", r.Rate, rate)
		}
	}
}

func TestCombineOperations(t *testing.T) {
	part := func(n int64) Result {
		a, b := Result{Op: "a", Count: n, Clients: 1, Hist: NewHistogram()}, Result{Op: "b", Count: 2 * n, Clients: 1, Hist: NewHistogram()}
		for i := int64(0); i < n; i++ {
			_ = a.Hist.RecordValue(1000)
			_ = b.Hist.RecordValue(2000)
			_ = b.Hist.RecordValue(3000)
		}
		h := NewHistogram()
		h.Merge(a.Hist)
		h.Merge(b.Hist)
		return Result{Op: "read", Count: 3 * n, Clients: 1, Hist: h, Ops: []Result{a, b}}
	}
	lost := Result{Op: "read", Clients: 1, Errors: 1, FirstError: "worker lost"}
	got := Combine("read", time.Second, []Result{lost, part(5), part(7)})
	if got.Count != 36 || got.Errors != 1 || len(got.Ops) != 2 {
		t.Fatalf("combined: %d calls %d errors %d ops", got.Count, got.Errors, len(got.Ops))
	}
	if got.Ops[0].Count != 12 || got.Ops[1].Count != 24 || got.Ops[0].Op != "a" {
		t.Errorf("combined operations: %+v", got.Ops)
	}
}

// A timed run cuts calls at the ceiling, warm-up calls included, and
// counts them as failed calls and timeouts of their operation.
func TestRunTimedCeiling(t *testing.T) {
	calls := 0
	call := func(ctx context.Context) (int, error) {
		op := calls % 2
		calls++
		if op == 1 {
			<-ctx.Done()
			return op, context.Cause(ctx)
		}
		return op, nil
	}
	for _, rate := range []float64{0, 50} {
		tm := Timed{Warmup: 2, Duration: 300 * time.Millisecond, Probe: 40 * time.Millisecond}
		t0 := time.Now()
		res, err := RunTimed(context.Background(), tm, []TimedStream{{Op: "read", Rate: rate, Ops: []string{"ok", "stuck"}, OpCalls: []OpCall{call}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(t0); took > 3*time.Second {
			t.Errorf("rate %v: the run took %s: calls were not cut at the ceiling", rate, took)
		}
		ok, stuck := res[0].Ops[0], res[0].Ops[1]
		if stuck.Timeouts == 0 || stuck.Errors < stuck.Timeouts || ok.Timeouts != 0 || res[0].Timeouts != stuck.Timeouts {
			t.Errorf("rate %v: ok %+v / stuck %+v: the stuck operation's calls are its timeouts", rate, ok, stuck)
		}
		if stuck.Max != 0 {
			t.Errorf("rate %v: a cut call's latency recorded as a success", rate)
		}
	}
}
