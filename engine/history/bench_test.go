package history

import (
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

// BenchmarkAddMillionRawRows: `history add` of a run with 1,000,000 raw
// rows (200,000 points of 5 reps) into a fresh store: reading the
// directory through package results, and the inserts. The bound
// is 5 s.
func BenchmarkAddMillionRawRows(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big")
	if err := historytest.Write(dir, historytest.Run{Started: time.Now(), Revision: historytest.Revision(0), Reps: 5, CV: 0.1, Seed: 1,
		Points: 200_000 - len(historytest.Scenarios)}); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := Open(filepath.Join(b.TempDir(), "history.db"))
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime(b)
		b.StartTimer()
		r, added, err := s.Add(dir)
		if err != nil || !added || r.Points != 200_000 {
			b.Fatalf("added %v, %d points: %v", added, r.Points, err)
		}
		b.StopTimer()
		cpu += cpuTime(b) - c0
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu_s/op")
}

// BenchmarkReport1000Runs: `history report` over 1,000 runs of 8 points
// of 5 reps (24 series): reading every point, finding the change points
// of every series, and writing trends.html. The bound is 2 s.
func BenchmarkReport1000Runs(b *testing.B) {
	root := b.TempDir()
	s, err := Open(filepath.Join(root, "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1000 {
		r := historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(i), Reps: 5, CV: 0.1,
			Seed: uint64(i + 1), Points: 5}
		if i >= 700 {
			r.Shift, r.ShiftScenario = 1.15, "point_lookup"
		}
		dir := filepath.Join(root, fmt.Sprintf("run-%04d", i))
		if err := historytest.Write(dir, r); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.Add(dir); err != nil {
			b.Fatal(err)
		}
	}
	var changes int
	c0 := cpuTime(b)
	for b.Loop() {
		a, err := s.Analyze(changepoint.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.HTML(io.Discard); err != nil {
			b.Fatal(err)
		}
		changes = len(a.Changes())
	}
	b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu_s/op")
	b.ReportMetric(float64(changes), "changes")
}

// cpuTime is the CPU (user and system) the process has used: on a busy
// machine the figure that does not grow with the neighbours' load.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
