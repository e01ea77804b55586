package metrics

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Hour), 3) }

// top is the value HDR reports for a call of v ns: its bucket's highest
// equivalent value, as a one-call histogram's p100 is.
func top(v int64) int64 {
	h := newHist()
	_ = h.RecordValue(v)
	return h.ValueAtQuantile(100)
}

// TestClassicBucketsCountRecordedValues: every classic bucket holds the
// calls whose HDR value is at most its bound, values at and next to the
// bounds included; nothing is interpolated.
func TestClassicBucketsCountRecordedValues(t *testing.T) {
	var values []int64
	for _, ns := range classicNs {
		values = append(values, ns-1, ns, ns+1, top(ns), top(ns)+1)
	}
	values = append(values, 1, 7, 2047, 2048, 123_456_789, int64(time.Hour))
	h := newHist()
	for i, v := range values {
		if err := h.RecordValues(v, int64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	var l latency
	l.add(h)
	if l.count != uint64(h.TotalCount()) {
		t.Fatalf("count %d, HDR has %d", l.count, h.TotalCount())
	}
	tops := make([]int64, len(values))
	for i, v := range values {
		tops[i] = top(v)
	}
	p := l.proto()
	for b, bucket := range p.Bucket {
		var want uint64
		for i := range values {
			if tops[i] <= classicNs[b] {
				want += uint64(i + 1)
			}
		}
		if got := bucket.GetCumulativeCount(); got != want {
			t.Errorf("le=%g: %d calls, want %d", bucket.GetUpperBound(), got, want)
		}
	}
	if got := l.classic[len(classicNs)]; got == 0 {
		t.Errorf("no call above %g s, want the hour-long one", ClassicBounds[len(ClassicBounds)-1])
	}
}

// TestNativeBuckets: each call lands in the native bucket whose bounds
// enclose its HDR value, and the spans and deltas decode to the counts.
func TestNativeBuckets(t *testing.T) {
	values := []int64{1, 1000, 1_000_000, 1_048_576, 1_048_577, 3_000_000, 3_000_001, 2_000_000_000}
	h := newHist()
	for i, v := range values {
		_ = h.RecordValues(v, int64(i+1))
	}
	var l latency
	l.add(h)
	want := map[int]int64{}
	for i, v := range values {
		s := float64(top(v)) / 1e9
		idx := nativeIndex(s)
		lo, hi := math.Exp2(float64(idx-1)/16), math.Exp2(float64(idx)/16)
		if !(lo < s*(1+1e-12) && s <= hi*(1+1e-12)) {
			t.Errorf("%g s in bucket %d = (%g, %g]", s, idx, lo, hi)
		}
		want[idx] += int64(i + 1)
	}
	p := l.proto()
	got := map[int]int64{}
	idx, count, d := 0, int64(0), 0
	for _, sp := range p.PositiveSpan {
		idx += int(sp.GetOffset())
		for range sp.GetLength() {
			count += p.PositiveDelta[d]
			d++
			got[idx] = count
			idx++
		}
	}
	if len(got) != len(want) {
		t.Fatalf("native buckets %v, want %v", got, want)
	}
	for i, c := range want {
		if got[i] != c {
			t.Errorf("native bucket %d: %d, want %d", i, got[i], c)
		}
	}
	if p.GetSchema() != NativeSchema || p.GetSampleCount() != uint64(h.TotalCount()) {
		t.Errorf("schema %d count %d", p.GetSchema(), p.GetSampleCount())
	}
	if mean := p.GetSampleSum() / float64(p.GetSampleCount()); math.Abs(mean-h.Mean()/1e9) > 1e-12 {
		t.Errorf("sum/count %g s, HDR's mean %g s", mean, h.Mean()/1e9)
	}
}

func TestClassicBounds(t *testing.T) {
	if ClassicBounds[0] != 1e-6 || ClassicBounds[len(ClassicBounds)-1] != 100 || len(ClassicBounds) != 25 {
		t.Fatalf("bounds %v", ClassicBounds)
	}
	for i := 1; i < len(ClassicBounds); i++ {
		if !(ClassicBounds[i] > ClassicBounds[i-1]) {
			t.Fatalf("bounds not increasing at %d: %v", i, ClassicBounds)
		}
	}
}

// TestSlotTableMatchesDistribution: the per-geometry table places every
// bucket as HDR's own Distribution does, for the run's geometry and others.
func TestSlotTableMatchesDistribution(t *testing.T) {
	for _, g := range []struct {
		lowest, highest int64
		sig             int
	}{{1, int64(time.Hour), 3}, {1, 1e9, 2}, {1000, 1e12, 3}, {1, 1e6, 4}} {
		h := hdrhistogram.New(g.lowest, g.highest, g.sig)
		for v := g.lowest; v < g.highest; v = v*3/2 + 1 {
			_ = h.RecordValues(v, v%7+1)
		}
		var fast, slow latency
		fast.add(h)
		slow.classic, slow.native = make([]uint64, len(classicNs)+1), map[int]int64{}
		slow.addBars(h)
		if !slices.Equal(fast.classic, slow.classic) || !maps.Equal(fast.native, slow.native) || fast.count != slow.count || math.Abs(fast.sum-slow.sum) > 1e-9*slow.sum {
			t.Errorf("geometry %+v: the table and Distribution disagree", g)
		}
	}
}
