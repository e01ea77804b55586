package worker

import (
	"context"
	"math"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// timedAssigns are n workers' shards of a closed-loop read stream of 4
// clients and an open-loop write stream of 2 clients at 400 calls/s,
// run for duration in windows of window.
func timedAssigns(n int, duration, window time.Duration) []Assign {
	streams := []PointStream{{Op: "read", Mix: []string{"q1"}, Clients: 4}, {Op: "write", Mix: []string{"w"}, Clients: 2, Rate: 400}}
	tm := TimedToWire(measure.Timed{Warmup: 1, Duration: duration, Window: window, LateBound: 10 * time.Millisecond, Grace: time.Second})
	var out []Assign
	for _, sh := range Split(streams, n) {
		out = append(out, Assign{Scenario: "sustained", Streams: sh, Timed: tm,
			Sampling: SamplingToWire(measure.Sampling{Warmup: 1, MinDuration: duration, MaxDuration: duration, Reps: 1, Probe: time.Second})})
	}
	return out
}

// windowLog records the merged windows and when each arrived.
type windowLog struct {
	mu sync.Mutex
	ws [][]measure.Window
	at []time.Time
}

func (l *windowLog) add(ws []measure.Window) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ws = append(l.ws, ws)
	l.at = append(l.at, time.Now())
}

// A timed assignment through real worker processes: windows arrive
// merged while the run goes on, in order; each window's counts and
// histogram agree; the windows add up to the totals; the open-loop
// stream's rows carry the declared rate, and its calls are that rate
// over the duration.
func TestPoolTimed(t *testing.T) {
	const duration, window = 1200 * time.Millisecond, 200 * time.Millisecond
	l := testLauncher(t, false)
	p, err := l.Start(context.Background(), timedAssigns(3, duration, window))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var log windowLog
	t0 := time.Now()
	res, err := p.RunTimed(context.Background(), []float64{0, 400}, log.add)
	end := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if len(log.ws) != 6 {
		t.Fatalf("%d windows, want 6", len(log.ws))
	}
	if early := log.at[0]; !early.Before(end.Add(-window)) {
		t.Errorf("the first window arrived %s after the start, the run ended at %s: windows must arrive while it runs", early.Sub(t0), end.Sub(t0))
	}
	if len(res) != 2 {
		t.Fatalf("%d totals, want 2", len(res))
	}
	for s, total := range res {
		var count, late int64
		for k, ws := range log.ws {
			w := ws[s]
			if w.Index != k || w.Stream != s || w.End-w.Start != window {
				t.Errorf("stream %d window %d: index %d, stream %d, [%s, %s)", s, k, w.Index, w.Stream, w.Start, w.End)
			}
			if w.Hist.TotalCount() != w.Count || w.Errors != 0 {
				t.Errorf("stream %d window %d: histogram %d, count %d, errors %d", s, k, w.Hist.TotalCount(), w.Count, w.Errors)
			}
			if w.Clients != []int{4, 2}[s] {
				t.Errorf("stream %d window %d: %d clients", s, k, w.Clients)
			}
			count += w.Count
			late += w.Late
		}
		if count != total.Count || total.Hist.TotalCount() != total.Count || late != total.Late {
			t.Errorf("stream %d: windows hold %d calls (%d late), totals %d (%d late), histogram %d", s, count, late, total.Count, total.Late, total.Hist.TotalCount())
		}
		if total.Elapsed != duration {
			t.Errorf("stream %d: elapsed %s, want %s", s, total.Elapsed, duration)
		}
		if total.ClientCPU <= 0 {
			t.Errorf("stream %d: no client CPU", s)
		}
	}
	read, write := res[0], res[1]
	if read.Rate != 0 || read.Count == 0 || read.Clients != 4 {
		t.Errorf("read totals %+v", read)
	}
	// 400/s for 1.2 s: 480 intended calls, split over two workers.
	if write.Rate != 400 || write.Clients != 2 || write.Count+write.Dropped+write.Errors != 480 {
		t.Errorf("write totals: rate %v, %d clients, %d calls, %d dropped, %d errors; want 480 intended at 400/s",
			write.Rate, write.Clients, write.Count, write.Dropped, write.Errors)
	}
	for _, ws := range log.ws {
		if ws[1].Rate != 400 {
			t.Errorf("window %d says rate %v, want the declared 400", ws[1].Index, ws[1].Rate)
		}
	}
}

// A worker killed mid-run: the others measure to the end, every window
// is handed over, the killed worker's share is an error in the windows
// from its death on and in the totals, whose counts still add up.
func TestPoolTimedWorkerKilled(t *testing.T) {
	const duration, window = 1500 * time.Millisecond, 250 * time.Millisecond
	l := testLauncher(t, false)
	p, err := l.Start(context.Background(), timedAssigns(2, duration, window))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	victim := p.PIDs()[1]
	var log windowLog
	go func() {
		time.Sleep(600 * time.Millisecond)
		_ = syscall.Kill(victim, syscall.SIGKILL)
	}()
	res, err := p.RunTimed(context.Background(), []float64{0, 400}, log.add)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("RunTimed error %v: want the killed worker", err)
	}
	if len(log.ws) != 6 {
		t.Fatalf("%d windows, want all 6: the surviving worker runs to the end", len(log.ws))
	}
	// Worker 0 runs read clients 0-2, worker 1 read client 3 and both writers.
	var count, errs int64
	for k, ws := range log.ws {
		w := ws[0]
		count += w.Count
		errs += w.Errors
		if w.Count == 0 {
			t.Errorf("window %d: no read calls: the surviving worker's are lost", k)
		}
	}
	first, last := log.ws[0][1], log.ws[5][1]
	if first.Errors != 0 || first.Count == 0 {
		t.Errorf("window 0 of the killed worker's writers: %d calls, %d errors", first.Count, first.Errors)
	}
	if last.Errors != 1 || last.Count != 0 || !strings.Contains(last.FirstError, "killed") {
		t.Errorf("last window of the killed worker's writers: %d calls, %d errors (%q): want its share as an error", last.Count, last.Errors, last.FirstError)
	}
	if read := res[0]; read.Count != count || read.Errors != errs || errs == 0 || !strings.Contains(read.FirstError, "killed") {
		t.Errorf("read totals %d calls, %d errors (%q); windows %d calls, %d errors", read.Count, read.Errors, read.FirstError, count, errs)
	}
	if res[1].Count == 0 || res[1].Errors == 0 {
		t.Errorf("write totals %+v: the calls made before the kill stay, with the error", res[1])
	}
}

// The coordinator's stop (its run interrupted) ends a timed run early,
// with what was measured.
func TestPoolTimedInterrupted(t *testing.T) {
	l := testLauncher(t, true)
	p, err := l.Start(context.Background(), timedAssigns(2, time.Minute, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var log windowLog
	t0 := time.Now()
	res, err := p.RunTimed(ctx, []float64{0, 400}, log.add)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("RunTimed error %v", err)
	}
	if el := time.Since(t0); el > 10*time.Second {
		t.Errorf("stopped after %s", el)
	}
	if len(res) != 2 || res[0].Count == 0 || res[0].Elapsed >= time.Minute || len(log.ws) < 3 {
		t.Errorf("%d windows, totals %+v", len(log.ws), res)
	}
	var count int64
	for _, ws := range log.ws {
		count += ws[0].Count
	}
	if count != res[0].Count {
		t.Errorf("windows hold %d read calls, totals %d", count, res[0].Count)
	}
}

// An open-loop stream's rate is split in proportion to each shard's
// clients: the shards' rates add up to the declared one.
func TestSplitRate(t *testing.T) {
	streams := []PointStream{{Op: "read", Clients: 3}, {Op: "write", Clients: 5, Rate: 1000}}
	for n := 1; n <= 8; n++ {
		var sum float64
		var due int64
		for _, w := range Split(streams, n) {
			for _, sh := range w {
				if sh.Stream == 0 && sh.Rate != 0 {
					t.Errorf("n=%d: closed-loop shard with rate %v", n, sh.Rate)
				}
				if sh.Stream == 1 {
					if want := 1000 * float64(sh.Clients()) / 5; sh.Rate != want {
						t.Errorf("n=%d: shard of %d clients at %v/s, want %v", n, sh.Clients(), sh.Rate, want)
					}
					// Due within a second: the shards' calls add up to the
					// stream's 1000, each shard starting within its first
					// interval.
					if float64(sh.OffsetNs) >= 1e9/sh.Rate {
						t.Errorf("n=%d: shard from %d offset %d ns, past its interval", n, sh.From, sh.OffsetNs)
					}
					due += int64(math.Ceil((1e9 - float64(sh.OffsetNs)) / (1e9 / sh.Rate)))
					sum += sh.Rate
				}
			}
		}
		if sum < 999.999 || sum > 1000.001 || due != 1000 {
			t.Errorf("n=%d: shards offer %v/s, %d calls due in a second, want 1000", n, sum, due)
		}
	}
}

// The worker's side of a timed assignment: after start it sends each
// window as it closes and then its totals, with no stop; a stop that
// crosses the end is ignored.
func TestServeTimedWithFakeCoordinator(t *testing.T) {
	f, done := startServe(t)
	f.expect(TypeHello)
	a := testAssign()
	a.Timed = TimedToWire(measure.Timed{Warmup: 1, Duration: 300 * time.Millisecond, Window: 100 * time.Millisecond, Grace: time.Second})
	a.Streams[1].Mix, a.Streams[1].Rate = []string{"w"}, 200
	f.send(Msg{Type: TypeAssign, Assign: a})
	f.expect(TypeOpened)
	f.send(Msg{Type: TypeRep, Rep: 1})
	f.expect(TypeReady)
	f.send(Msg{Type: TypeStart})
	var sums [2]int64
	for k := 0; k < 3; k++ {
		m := f.expect(TypeWindow)
		if m.Rep != 1 || m.Index != k || m.EndNs-m.StartNs != int64(100*time.Millisecond) || len(m.Streams) != 2 {
			t.Fatalf("window %d: %+v", k, m)
		}
		for s, sr := range m.Streams {
			r, err := sr.Decode()
			if err != nil {
				t.Fatal(err)
			}
			sums[s] += r.Count
		}
	}
	res := f.expect(TypeResult)
	if res.ElapsedNs != int64(300*time.Millisecond) || len(res.Streams) != 2 || res.Error != "" {
		t.Fatalf("result %+v", res)
	}
	for s, sr := range res.Streams {
		if sr.Count != sums[s] || sr.Count == 0 {
			t.Errorf("stream %d: totals %d, windows %d", s, sr.Count, sums[s])
		}
	}
	// 200/s for 0.3 s: 60 intended calls of the open-loop stream.
	if w := res.Streams[1]; w.Count+w.Dropped != 60 || w.Clients != 1 {
		t.Errorf("open-loop stream %+v: want 60 intended calls", w)
	}
	f.send(Msg{Type: TypeStop})
	f.send(Msg{Type: TypeBye})
	if err := <-done; err != nil {
		t.Fatalf("Serve after bye: %v", err)
	}
}

// A worker lost before the barrier of a timed run: nobody measured, the
// rows name the lost worker and the open-loop stream's declared rate.
func TestPoolTimedWorkerLostBeforeBarrier(t *testing.T) {
	l := testLauncher(t, false)
	p, err := l.Start(context.Background(), timedAssigns(2, time.Second, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	victim := p.PIDs()[1]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	windows := 0
	res, err := p.RunTimed(context.Background(), []float64{0, 400}, func([]measure.Window) { windows++ })
	if err == nil || !strings.Contains(err.Error(), "before the barrier") {
		t.Fatalf("RunTimed error %v", err)
	}
	if windows != 0 || len(res) != 2 || res[1].Rate != 400 || res[1].Count != 0 || res[1].Errors != 1 || !strings.Contains(res[1].FirstError, "killed") {
		t.Errorf("%d windows, rows %+v", windows, res)
	}
}
