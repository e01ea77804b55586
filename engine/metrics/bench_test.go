package metrics

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// repHist is a rep's histogram as a point makes it: n calls, log-normal
// around 50 µs with a tail to tens of milliseconds.
func repHist(n int) *hdrhistogram.Histogram {
	r := rand.New(rand.NewPCG(1, 2))
	h := newHist()
	for range n {
		v := 50_000 * (1 + r.ExpFloat64()*r.ExpFloat64()*r.ExpFloat64()*4)
		_ = h.RecordValue(min(int64(v), int64(time.Hour)))
	}
	return h
}

// BenchmarkEmit is the exporter's cost per record a run emits: a rep's
// raw row (counters only), and its histogram (every HDR bucket walked
// into the classic and native buckets).
func BenchmarkEmit(b *testing.B) {
	h := repHist(100_000)
	b.Logf("the rep's histogram: %d calls in %d distinct HDR buckets", h.TotalCount(), distinct(h))
	r := row("lookup", "read", 4, h.TotalCount(), 0)
	b.Run("raw", func(b *testing.B) {
		e := New()
		for b.Loop() {
			_ = e.Emit(results.Raw(r))
		}
	})
	b.Run("rephist", func(b *testing.B) {
		e := New()
		rec := results.RepHist{Row: r, Interval: results.Interval{Hist: h}}
		for b.Loop() {
			_ = e.Emit(rec)
		}
	})
	b.Run("window", func(b *testing.B) {
		e := New()
		rec := results.WindowRow{Row: r, Hist: h}
		for b.Loop() {
			_ = e.Emit(rec)
		}
	})
}

// BenchmarkScrape is one scrape of a run of 200 points (a full.hcl
// matrix's order), each with its histogram.
func BenchmarkScrape(b *testing.B) {
	e := New()
	h := repHist(10_000)
	for i := range 200 {
		r := row("s", "read", i, h.TotalCount(), 0)
		_ = e.Emit(results.Raw(r))
		_ = e.Emit(results.RepHist{Row: r, Interval: results.Interval{Hist: h}})
	}
	for b.Loop() {
		if _, err := e.Gatherer().Gather(); err != nil {
			b.Fatal(err)
		}
	}
}

func distinct(h *hdrhistogram.Histogram) int {
	n := 0
	for _, bar := range h.Distribution() {
		if bar.Count > 0 {
			n++
		}
	}
	return n
}
