package closedloop

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// recEnv is a kind.Env whose clients answer at once and which keeps
// what is emitted.
type recEnv struct {
	mu   sync.Mutex
	recs []results.Record
}

type nopClient struct{}

func (nopClient) Call(context.Context) error { time.Sleep(10 * time.Microsecond); return nil }
func (nopClient) Close()                     {}

func (e *recEnv) Sampling() measure.Sampling { return measure.Sampling{} }
func (e *recEnv) Seed() uint64               { return 1 }
func (e *recEnv) OpenClient(context.Context, []string, int, uint64) (kind.Client, error) {
	return nopClient{}, nil
}
func (e *recEnv) Row() results.Row {
	return results.Row{Scenario: "s", Backend: "b", Scale: "xs", NDatoms: 10}
}
func (e *recEnv) Emit(r results.Record) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.recs = append(e.recs, r)
}
func (e *recEnv) Logf(string, ...any)                               {}
func (e *recEnv) LogErrors(measure.Result)                          {}
func (e *recEnv) Restart(context.Context) (kind.RestartInfo, error) { return kind.RestartInfo{}, nil }
func (e *recEnv) raws() (out []results.Row) {
	return pick[results.Raw](e, func(r results.Raw) results.Row { return results.Row(r) })
}
func (e *recEnv) timings() (out []results.Row) {
	return pick[results.Timing](e, func(r results.Timing) results.Row { return results.Row(r) })
}
func (e *recEnv) hists() (out []results.Hist) {
	return pick[results.Hist](e, func(h results.Hist) results.Hist { return h })
}
func pick[T results.Record, U any](e *recEnv, f func(T) U) (out []U) {
	for _, r := range e.recs {
		if v, ok := r.(T); ok {
			out = append(out, f(v))
		}
	}
	return out
}

func point(reps int) kind.Repeatable {
	def := &Definition{Clients: []int{1}, Streams: []Stream{{Op: results.OpRead, Mix: []string{"q"}}}}
	samp := measure.Sampling{Warmup: 1, MinDuration: 5 * time.Millisecond, MinSamples: 3, MaxDuration: 20 * time.Millisecond, Reps: reps}
	return def.Points(samp)[0].(kind.Repeatable)
}

// A point interrupted after two of its three reps, resumed in another
// process from what the two saved, sums up the three as if it had run
// them at once: its timing row is the median of the three reps' rows and
// its HDR log has the three reps' intervals, the first two as measured.
func TestRestoredRepsSumUpWithTheNext(t *testing.T) {
	ctx := context.Background()
	first := &recEnv{}
	rr := point(3).Reps(first)
	var saved [][]byte
	for n := 1; n <= 2; n++ {
		if done, err := rr.Rep(ctx, n); done || err != nil {
			t.Fatalf("rep %d: done %v, %v", n, done, err)
		}
		b, err := rr.Saved(n)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, b)
	}
	if _, err := rr.Saved(1); err == nil {
		t.Error("Saved of a rep not the last measured")
	}
	rr.Release() // killed here: no Finish

	second := &recEnv{}
	resumed := point(3).Reps(second)
	if err := resumed.Restore(saved); err != nil {
		t.Fatal(err)
	}
	if done, err := resumed.Rep(ctx, 3); done || err != nil {
		t.Fatalf("rep 3: done %v, %v", done, err)
	}
	if err := resumed.Finish(); err != nil {
		t.Fatal(err)
	}
	raws := append(first.raws(), second.raws()...)
	if len(raws) != 3 {
		t.Fatalf("%d raw rows over both parts, want 3", len(raws))
	}
	timings := second.timings()
	if len(timings) != 1 || timings[0] != results.Median(raws) || timings[0].Reps != 3 {
		t.Errorf("timing row %+v, want the median of the three reps %+v", timings, results.Median(raws))
	}
	hists := second.hists()
	if len(hists) != 1 || len(hists[0].Intervals) != 3 {
		t.Fatalf("HDR logs %+v, want one of three intervals", hists)
	}
	var reps []results.RepHist
	for _, r := range first.recs {
		if rh, ok := r.(results.RepHist); ok {
			reps = append(reps, rh)
		}
	}
	for i, rh := range reps {
		got := hists[0].Intervals[i]
		if !got.Start.Equal(rh.Interval.Start) || !got.End.Equal(rh.Interval.End) || got.Hist.TotalCount() != rh.Interval.Hist.TotalCount() || !got.Hist.Equals(rh.Interval.Hist) {
			t.Errorf("interval %d restored differs from the one measured", i+1)
		}
	}
}

// What is not a point's saved reps, in their order, is refused.
func TestRestoreRefusesWhatItCannotUse(t *testing.T) {
	ctx := context.Background()
	rr := point(3).Reps(&recEnv{})
	var saved [][]byte
	for n := 1; n <= 2; n++ {
		if _, err := rr.Rep(ctx, n); err != nil {
			t.Fatal(err)
		}
		b, err := rr.Saved(n)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, b)
	}
	for name, bad := range map[string][][]byte{
		"not JSON":    {[]byte("{")},
		"rep 2 first": {saved[1]},
		"rep 1 twice": {saved[0], saved[0]},
	} {
		if err := point(3).Reps(&recEnv{}).Restore(bad); err == nil {
			t.Errorf("%s: restored", name)
		}
	}
	measured := point(3).Reps(&recEnv{})
	if _, err := measured.Rep(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := measured.Restore(saved[:1]); err == nil {
		t.Error("restored into a point that measured a rep")
	}
}
