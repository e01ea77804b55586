package measure

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// A gate that opens at once and stops after a fixed number of ticks
// measures like RunPoint; a gate that fails never starts the point.
type tickGate struct {
	startErr error
	ticks    int
	seen     [][]int64
}

func (g *tickGate) Start(ctx context.Context) error { return g.startErr }

func (g *tickGate) Tick(calls []int64) bool {
	g.seen = append(g.seen, append([]int64(nil), calls...))
	g.ticks--
	return g.ticks <= 0
}

func TestRunPointGated(t *testing.T) {
	var n atomic.Int64
	call := func(ctx context.Context) error { n.Add(1); time.Sleep(100 * time.Microsecond); return nil }
	s := Sampling{Warmup: 1, MaxDuration: time.Hour}
	streams := []Stream{{Op: "read", Calls: []Call{call, call}}, {Op: "write", Calls: []Call{call}}}

	g := &tickGate{ticks: 20}
	res, err := RunPointGated(context.Background(), s, streams, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.seen) != 20 || len(g.seen[0]) != 2 {
		t.Fatalf("ticks %d, calls per tick %v", len(g.seen), g.seen[0])
	}
	last := g.seen[len(g.seen)-1]
	if last[0] == 0 || last[1] == 0 {
		t.Errorf("no progress reported: %v", last)
	}
	if res[0].Clients != 2 || res[0].Count == 0 || res[0].Hist == nil || res[0].Hist.TotalCount() != res[0].Count {
		t.Errorf("read result %+v", res[0])
	}

	bad := &tickGate{startErr: errors.New("coordinator gone")}
	if _, err := RunPointGated(context.Background(), s, streams, bad); err == nil || len(bad.seen) != 0 {
		t.Fatalf("a failed start must end the point before measuring: err %v, ticks %d", err, len(bad.seen))
	}
}

// wakeGate asks for a tick only every second and stops when its news
// (set from another goroutine) comes.
type wakeGate struct {
	ticks int
	stop  atomic.Bool
	wake  func()
	woken chan struct{}
}

func (g *wakeGate) Start(ctx context.Context) error { return nil }
func (g *wakeGate) Tick([]int64) bool               { g.ticks++; return g.stop.Load() }
func (g *wakeGate) NextTick() time.Time             { return time.Now().Add(time.Second) }
func (g *wakeGate) Wake(f func()) {
	g.wake = f
	close(g.woken)
}

// A GateWaker is not polled: it is ticked when it asks (here after a
// second) or when it wakes the controller, which then stops at once.
func TestGateWaker(t *testing.T) {
	call := func(ctx context.Context) error { time.Sleep(100 * time.Microsecond); return nil }
	s := Sampling{MaxDuration: time.Hour}
	g := &wakeGate{woken: make(chan struct{})}
	go func() {
		<-g.woken
		time.Sleep(200 * time.Millisecond)
		g.stop.Store(true)
		g.wake()
	}()
	t0 := time.Now()
	res, err := RunPointGated(context.Background(), s, []Stream{{Op: "read", Calls: []Call{call}}}, g)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(t0); el > 900*time.Millisecond {
		t.Errorf("the point took %s: the news did not wake the controller", el)
	}
	// One tick 2 ms after the start, one at the news; a polling
	// controller would have ticked about 100 times in 200 ms.
	if g.ticks > 3 {
		t.Errorf("%d ticks in 200 ms: the controller polled", g.ticks)
	}
	if res[0].Count == 0 {
		t.Error("no calls measured")
	}
}

// Combining parts equals recording every value into one histogram.
func TestCombineIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := NewHistogram()
	var parts []Result
	var maxNs int64
	for p := 0; p < 4; p++ {
		h := NewHistogram()
		var pm int64
		for i := 0; i < 1000*(p+1); i++ {
			v := int64(rng.ExpFloat64()*float64(time.Millisecond)*float64(p+1)) + 1
			_ = h.RecordValue(v)
			_ = all.RecordValue(v)
			pm = max(pm, v)
		}
		maxNs = max(maxNs, pm)
		parts = append(parts, Result{Op: "read", Clients: 2, Count: h.TotalCount(), Errors: int64(p), Max: time.Duration(pm), Hist: h})
	}
	parts[2].FirstError = "boom"
	got := Combine("read", 2*time.Second, parts)
	want := Result{Op: "read", Clients: 8, Count: all.TotalCount(), Errors: 6, FirstError: "boom", Elapsed: 2 * time.Second, Hist: all}
	want.summarize(maxNs)
	if !got.Hist.Equals(all) {
		t.Fatal("merged histogram differs from the one recorded directly")
	}
	got.Hist, want.Hist = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Combine:\n got %+v\nwant %+v", got, want)
	}
	// Averaging the parts' medians is not the merged median.
	var avg time.Duration
	for _, p := range parts {
		p.Elapsed = time.Second
		p.summarize(int64(p.Max))
		avg += p.P50 / time.Duration(len(parts))
	}
	if avg == got.P50 {
		t.Errorf("the fixture cannot tell a merged median from an averaged one (%s)", avg)
	}
}
