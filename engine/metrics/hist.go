package metrics

import (
	"math"
	"slices"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	dto "github.com/prometheus/client_model/go"
)

// How an HDR histogram becomes Prometheus buckets, exactly.
//
// HDR (3 significant digits, 1 ns unit) keeps no values, only counts per
// bucket of equivalent values, each at most 1/1024 of its value wide.
// Its percentiles (timings.csv's p50, p99) report a bucket by its highest
// equivalent value. So does this package: each HDR bucket's count goes
// whole into the one Prometheus bucket that holds its highest equivalent
// value. A Prometheus bucket's count is then the number of recorded calls
// whose value, as HDR reports it, is at most the bucket's upper bound:
// counts, never interpolations, and the run's p99 lies in the bucket
// where Prometheus' histogram_quantile(0.99) finds its rank.
//
// The classic buckets' upper bounds are ClassicBounds (seconds). The
// native histogram has schema NativeSchema: bucket i holds values in
// (2^((i-1)/16), 2^(i/16)] seconds, about 4.4% wide, with no zero bucket
// (HDR records no latency below 1 ns). The sum is HDR's: each bucket's
// count times its middle value, as HDR's mean weighs it.

// ClassicBounds are the classic histogram's upper bounds in seconds:
// 1, 2 and 5 of each decade from 1 µs to 100 s, then +Inf.
var ClassicBounds = classicBounds()

// classicNs are ClassicBounds in whole nanoseconds, compared exactly.
var classicNs = func() []int64 {
	ns := make([]int64, len(ClassicBounds))
	for i, b := range ClassicBounds {
		ns[i] = int64(math.Round(b * 1e9))
	}
	return ns
}()

func classicBounds() []float64 {
	var out []float64
	for d := 1e-6; d < 100; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			// Rounded to 9 decimals so that 2e-05 is 2e-05, not 2.0000000000000002e-05.
			out = append(out, math.Round(m*d*1e9)/1e9)
		}
	}
	return append(out, 100)
}

// NativeSchema is the native histogram's resolution: 2^4 buckets per
// doubling.
const NativeSchema = 4

// nativeBounds are the fractions (as math.Frexp gives, in [0.5, 1)) at
// which the schema's buckets of one doubling end.
var nativeBounds = func() []float64 {
	n := 1 << NativeSchema
	b := make([]float64, n)
	for j := range n {
		b[j] = math.Exp2(float64(j)/float64(n) - 1)
	}
	return b
}()

// nativeIndex is the native bucket of v seconds (v > 0): the i with
// 2^((i-1)/2^schema) < v <= 2^(i/2^schema), found as client_golang does.
func nativeIndex(v float64) int {
	frac, exp := math.Frexp(v)
	return sortSearch(nativeBounds, frac) + (exp-1)*len(nativeBounds)
}

// sortSearch is the first index whose bound is >= frac.
func sortSearch(bounds []float64, frac float64) int {
	i, _ := slices.BinarySearch(bounds, frac)
	return i
}

// latency is one series' histogram: classic and native counts, both of
// every recorded call.
type latency struct {
	count   uint64
	sum     float64  // seconds
	classic []uint64 // per ClassicBounds, then +Inf; not cumulative
	native  map[int]int64
}

// add counts every value of h (ns).
func (l *latency) add(h *hdrhistogram.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	if l.classic == nil {
		l.classic = make([]uint64, len(classicNs)+1)
		l.native = map[int]int64{}
	}
	counts, table := h.Export().Counts, slotsOf(h)
	for i := len(table); i < len(counts); i++ {
		if counts[i] != 0 { // past the table's last bucket: never for HDR's own geometry
			l.addBars(h)
			return
		}
	}
	for i, c := range counts[:min(len(counts), len(table))] {
		if c != 0 {
			l.count1(table[i], c)
		}
	}
}

// addBars is add through HDR's Distribution: the same buckets, found
// with an allocation per bucket.
func (l *latency) addBars(h *hdrhistogram.Histogram) {
	for _, bar := range h.Distribution() {
		if bar.Count != 0 {
			l.count1(slotOf(bar.From, bar.To), bar.Count)
		}
	}
}

func (l *latency) count1(s slot, n int64) {
	l.classic[s.classic] += uint64(n)
	l.native[s.native] += n
	l.sum += float64(n) * s.mid
	l.count += uint64(n)
}

// slot is where the calls of one HDR bucket go.
type slot struct {
	classic, native int
	mid             float64 // seconds: the bucket's middle, as HDR's mean weighs it
}

// slotOf places the HDR bucket of values from..to (ns) by its highest
// equivalent value to, the value HDR's percentiles report.
func slotOf(from, to int64) slot {
	c, _ := slices.BinarySearch(classicNs, to)
	mid := from + (to-from+1)>>1
	return slot{classic: c, native: nativeIndex(float64(to) / 1e9), mid: float64(mid) / 1e9}
}

// geometry identifies histograms whose counts arrays index alike.
type geometry struct{ lowest, highest, sig int64 }

// slotTables holds, per geometry, the slot of every counts index.
var slotTables sync.Map

// slotsOf is the slot of each index of h's counts array, made once per
// geometry from HDR's own Distribution of a histogram holding its
// highest trackable value (whose bars are then every bucket, in order).
func slotsOf(h *hdrhistogram.Histogram) []slot {
	g := geometry{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
	if t, ok := slotTables.Load(g); ok {
		return t.([]slot)
	}
	probe := hdrhistogram.New(g.lowest, g.highest, int(g.sig))
	_ = probe.RecordValue(g.highest)
	bars := probe.Distribution()
	t := make([]slot, len(bars))
	for i, b := range bars {
		t[i] = slotOf(b.From, b.To)
	}
	slotTables.Store(g, t)
	return t
}

// proto is the histogram as the exposition carries it: classic buckets
// for a scraper that reads text, native spans for one that negotiates
// protobuf with native histograms on.
func (l *latency) proto() *dto.Histogram {
	h := &dto.Histogram{
		SampleCount:   ptr(l.count),
		SampleSum:     ptr(l.sum),
		Schema:        ptr(int32(NativeSchema)),
		ZeroThreshold: ptr(0.0),
		ZeroCount:     ptr(uint64(0)),
	}
	var cum uint64
	for i, b := range ClassicBounds {
		if l.classic != nil {
			cum += l.classic[i]
		}
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: ptr(b), CumulativeCount: ptr(cum)})
	}
	h.PositiveSpan, h.PositiveDelta = spans(l.native)
	if len(h.PositiveSpan) == 0 {
		// An empty span marks the histogram native when it has no count yet.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: ptr(int32(0)), Length: ptr(uint32(0))}}
	}
	return h
}

// spans encodes sparse bucket counts as the protobuf format's spans of
// consecutive buckets and count deltas.
func spans(buckets map[int]int64) ([]*dto.BucketSpan, []int64) {
	if len(buckets) == 0 {
		return nil, nil
	}
	idx := make([]int, 0, len(buckets))
	for i := range buckets {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var (
		out    []*dto.BucketSpan
		deltas []int64
		prev   int64
	)
	for n, i := range idx {
		switch {
		case n == 0:
			out = append(out, &dto.BucketSpan{Offset: ptr(int32(i)), Length: ptr(uint32(1))})
		case i == idx[n-1]+1:
			*out[len(out)-1].Length++
		default:
			out = append(out, &dto.BucketSpan{Offset: ptr(int32(i - idx[n-1] - 1)), Length: ptr(uint32(1))})
		}
		deltas = append(deltas, buckets[i]-prev)
		prev = buckets[i]
	}
	return out, deltas
}

func ptr[T any](v T) *T { return &v }
