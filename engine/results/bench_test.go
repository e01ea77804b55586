//go:build unix

package results

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: steadier than wall time
// on a shared box.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAppend is the cost of recording a finished point: one row per
// rep and stream, one write(2) each, against seconds of measurement.
func BenchmarkAppend(b *testing.B) {
	appendTo := func(b *testing.B, add func(*Dir) error) {
		d, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		b.ReportAllocs()
		c0 := cpuTime(b)
		for b.Loop() {
			if err := add(d); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("raw", func(b *testing.B) { appendTo(b, func(d *Dir) error { return d.AppendRaw(sample) }) })
	b.Run("timing", func(b *testing.B) { appendTo(b, func(d *Dir) error { return d.AppendTiming(sample) }) })
	b.Run("check", func(b *testing.B) {
		line := CheckLine{Status: Pass, Scenario: "pull", Backend: "sqlite", Scale: "s", Name: "title of fixed issues", Detail: "20 of 20 cases as expected"}
		appendTo(b, func(d *Dir) error { return d.AppendCheck(line) })
	})
	b.Run("format-only", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf = appendRaw(buf[:0], sample)
		}
	})
	b.Run("median-of-3", func(b *testing.B) {
		rows := []Row{sample, sample, sample}
		b.ReportAllocs()
		for b.Loop() {
			_ = Median(rows)
		}
	})
}
