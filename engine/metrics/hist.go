package metrics

import (
	"math"
	"slices"

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
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		top := bar.To // HDR's highest equivalent value, as its percentiles report
		c, _ := slices.BinarySearch(classicNs, top)
		l.classic[c] += uint64(bar.Count)
		l.native[nativeIndex(float64(top)/1e9)] += bar.Count
		mid := bar.From + (bar.To-bar.From+1)>>1
		l.sum += float64(bar.Count) * float64(mid) / 1e9
		l.count += uint64(bar.Count)
	}
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
