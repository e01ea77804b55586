package results

import (
	"testing"
)

// BenchmarkAppend is the cost of recording a finished point: one row per
// rep and stream, one write(2) each, against seconds of measurement.
func BenchmarkAppend(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		d, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		b.ReportAllocs()
		for b.Loop() {
			if err := d.AppendRaw(sample); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("timing", func(b *testing.B) {
		d, err := Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		b.ReportAllocs()
		for b.Loop() {
			if err := d.AppendTiming(sample); err != nil {
				b.Fatal(err)
			}
		}
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
