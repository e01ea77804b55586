package progress

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestLines(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := New(&buf, false, time.Hour, 100*time.Second)
	p.now = func() time.Time { return now }
	p.Start()
	defer p.Close()
	if got := buf.String(); got != "progress 0s ETA 1m40s\n" {
		t.Errorf("first line %q", got)
	}
	p.Begin("xs/sqlite point", "ops", 30*time.Second, 0, func() (int64, int64) { return 5000, 2 })
	now = now.Add(10 * time.Second)
	_ = p.Emit(results.Raw(results.Row{P99Ms: 1.5}))
	want := "progress 10s ETA 1m30s | xs/sqlite point 10s/30s 500.0 ops/s p99 1.500 ms errors 2"
	if got := p.Line(); got != want {
		t.Errorf("line\n%q\nwant\n%q", got, want)
	}
	p.End()
	now = now.Add(5 * time.Second) // the point ended early: its estimate counts as done
	if got := p.Line(); got != "progress 15s ETA 1m10s" {
		t.Errorf("after the point: %q", got)
	}
	// A task without a counter shows its time only.
	p.Begin("scale xs: computing truth", "datoms", 0, 0, nil)
	if got := p.Line(); got != "progress 15s ETA 1m10s | scale xs: computing truth 0s" {
		t.Errorf("uncounted task: %q", got)
	}
	p.End()
	// A load slower than estimated pushes the ETA out.
	p.Begin("xs/sqlite load", "datoms", time.Second, 1000, func() (int64, int64) { return 100, 0 })
	now = now.Add(10 * time.Second)
	if got := p.Line(); !strings.Contains(got, "100 of 1000 datoms 10.0 datoms/s") || !strings.Contains(got, "ETA 2m39s") {
		t.Errorf("load line %q", got)
	}
}

func TestTerminalRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, true, 0, time.Minute)
	p.Start()
	_, _ = p.Write([]byte("a log line\n"))
	p.Close()
	out := buf.String()
	if !strings.HasPrefix(out, "\r\033[Kprogress 0s ETA 1m00s\r\033[Ka log line\n") {
		t.Errorf("terminal output %q", out)
	}
}

func TestTerminalLineIsCut(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, true, 0, time.Minute)
	p.Begin(strings.Repeat("a very long point description ", 10), "ops", time.Second, 0, func() (int64, int64) { return 1, 0 })
	p.print()
	line := strings.TrimPrefix(buf.String(), "\r\033[K")
	if len(line) != maxTTY || !strings.HasPrefix(line, "0s ETA ") || !strings.HasSuffix(line, "...") {
		t.Errorf("line of %d bytes: %q", len(line), line)
	}
}

// A line fits its width by leaving out, in order, the word "progress",
// the end of the task's name, the task, the streams past the first:
// never a stream's numbers.
func TestFit(t *testing.T) {
	task := "xs/sqlite write_mixed 1 writer, 2 readers"
	r := "read 12.3k ops/s p50 0.412 p99 1.20 ms err 0"
	w := "write 506 ops/s p50 0.092 p99 39.8 ms err 0"
	for _, tc := range []struct {
		width   int
		streams []string
		want    string
	}{
		{0, []string{r, w}, "progress 1m02s ETA 3m10s | " + task + " | " + r + " | " + w},
		{200, []string{r}, "progress 1m02s ETA 3m10s | " + task + " | " + r},
		{110, []string{r}, "1m02s ETA 3m10s | " + task + " | " + r},
		{100, []string{r}, "1m02s ETA 3m10s | xs/sqlite write_mixed 1 writer, ... | " + r},
		{80, []string{r, w}, "1m02s ETA 3m10s | " + r + " | +1 stream"},
		{70, []string{r}, "1m02s ETA 3m10s | " + r},
		{40, []string{r}, "1m02s ETA 3m10s | read 12.3k ops/s p5..."},
		{50, nil, "1m02s ETA 3m10s | xs/sqlite write_mixed 1 write..."},
	} {
		got := fit(tc.width, "1m02s", "3m10s", task, tc.streams)
		if got != tc.want {
			t.Errorf("width %d:\n got %q\nwant %q", tc.width, got, tc.want)
		}
		if tc.width > 0 && len(got) > tc.width {
			t.Errorf("width %d: %d columns", tc.width, len(got))
		}
	}
}

// With a live view, a line shows each stream's numbers over the last
// interval only: ops/s, p50, p99 and errors.
func TestIntervalsFromLive(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := New(&buf, false, time.Second, time.Minute)
	p.now = func() time.Time { return now }
	l := measure.NewLive()
	ctx := measure.WithLive(context.Background(), l)
	p.Begin("xs/sqlite point", "ops", 30*time.Second, 0, func() (int64, int64) { return 0, 0 })
	p.Watch(l)
	// A real point of calls of about 1 ms, counted into the live view.
	slow := func(context.Context) error { time.Sleep(time.Millisecond); return nil }
	if _, err := measure.RunPoint(ctx, measure.Sampling{MinDuration: 30 * time.Millisecond, MinSamples: 5, MaxDuration: time.Second},
		[]measure.Stream{{Op: "read", Calls: []measure.Call{slow}}}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Second)
	first := p.Line()
	if !strings.Contains(first, "| read ") || !strings.Contains(first, " ops/s p50 1.") || !strings.Contains(first, "err 0") {
		t.Errorf("first interval: %q", first)
	}
	now = now.Add(time.Second) // nothing ran in this interval
	if got := p.Line(); !strings.Contains(got, "| read 0.0 ops/s p50 - p99 - ms err 0") {
		t.Errorf("an idle interval: %q", got)
	}
}

// The ETA falls as soon as the work left does, and rises only at the
// pace of etaRise: an early, high estimate does not throw it about.
func TestETARisesSlowly(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(&bytes.Buffer{}, false, time.Hour, 100*time.Second)
	p.now = func() time.Time { return now }
	if got := p.shownETA(now, 100*time.Second); got != 100*time.Second {
		t.Fatalf("first ETA %s", got)
	}
	now = now.Add(time.Second)
	if got := p.shownETA(now, 300*time.Second); got != 99*time.Second+20100*time.Millisecond {
		t.Errorf("a jump to 300s after 1s shows %s, want 119.1s (a tenth of the gap)", got)
	}
	now = now.Add(time.Second)
	if got := p.shownETA(now, 50*time.Second); got != 50*time.Second {
		t.Errorf("a fall shows %s, want 50s at once", got)
	}
}

// Tasks that take longer than the plan's (low) estimate stretch the ETA
// of the rest by as much; tasks ending early leave it as estimated.
func TestETAFollowsFinishedTasks(t *testing.T) {
	for _, tc := range []struct {
		name string
		took time.Duration // of a task estimated at 10 s
		want string        // after it, with 90 s of estimate left
	}{
		{"as estimated", 10 * time.Second, "ETA 1m30s"},
		{"three times slower", 30 * time.Second, "ETA 3m30s"}, // (30+5)/(10+5) of 90 s
		{"early", 2 * time.Second, "ETA 1m30s"},
		{"beyond the bound", 1000 * time.Second, "ETA 30m00s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			p := New(&bytes.Buffer{}, false, time.Hour, 100*time.Second)
			p.now = func() time.Time { return now }
			p.Begin("point 1", "ops", 10*time.Second, 0, nil)
			now = now.Add(tc.took)
			p.End()
			if got := p.Line(); !strings.Contains(got, tc.want) {
				t.Errorf("%q, want %s", got, tc.want)
			}
			// Within the next task the ETA counts its time down at the same pace.
			p.Begin("point 2", "ops", 10*time.Second, 0, nil)
			now = now.Add(5 * time.Second)
			before := p.slower()
			want := time.Duration(float64(90*time.Second)*before) - 5*time.Second
			if got := p.Line(); !strings.Contains(got, "ETA "+short(want)) {
				t.Errorf("during the next task: %q, want ETA %s", got, short(want))
			}
		})
	}
}

// Over a run of a tiny load and points a little slower than estimated,
// sampled twice a second, the ETA counts down: it never rises by more
// than a second between two samples, and ends near zero.
func TestETAOverARunCountsDown(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(&bytes.Buffer{}, false, time.Hour, 10*time.Millisecond+5*2200*time.Millisecond)
	p.now = func() time.Time { return now }
	eta := func() time.Duration {
		l := p.Line()
		i := strings.Index(l, "ETA ")
		d, err := time.ParseDuration(strings.Fields(l[i+4:])[0])
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		return d
	}
	last := eta()
	step := func(task string, est, took time.Duration) {
		p.Begin(task, "ops", est, 0, func() (int64, int64) { return 0, 0 })
		for el := time.Duration(0); el < took; el += 500 * time.Millisecond {
			now = now.Add(min(500*time.Millisecond, took-el))
			if e := eta(); e > last+time.Second {
				t.Errorf("%s at %s: ETA rose from %s to %s", task, el, last, e)
			} else {
				last = e
			}
		}
		p.End()
	}
	step("load", 10*time.Millisecond, 100*time.Millisecond)
	for i := 0; i < 5; i++ {
		step(fmt.Sprintf("point %d", i), 2200*time.Millisecond, 2300*time.Millisecond)
	}
	if e := eta(); e > time.Second {
		t.Errorf("ETA %s at the end", e)
	}
}
