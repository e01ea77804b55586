package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
	if len(line) != maxTTY || !strings.HasPrefix(line, "progress 0s ETA ") || !strings.HasSuffix(line, "...") {
		t.Errorf("line of %d bytes: %q", len(line), line)
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
		{"three times slower", 30 * time.Second, "ETA 4m30s"},
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
