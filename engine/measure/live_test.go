package measure

import (
	"context"
	"math"
	"testing"
	"time"
)

// A bucket holds its values and its middle is within half a bucket
// (1/32) of each of them.
func TestLiveBuckets(t *testing.T) {
	for _, ns := range []int64{0, 1, 15, 16, 17, 31, 32, 1000, 123456, 999999937, int64(time.Hour), math.MaxInt64} {
		b := liveBucket(ns)
		if b < 0 || b >= liveBuckets {
			t.Fatalf("bucket(%d) = %d out of range", ns, b)
		}
		if mid := liveBucketMid(b); math.Abs(mid-float64(ns)) > float64(ns)/32+0.5 {
			t.Errorf("bucket(%d) middle %.0f, more than 1/32 away", ns, mid)
		}
		if b > 0 && liveBucket(ns) < liveBucket(ns-1) {
			t.Errorf("buckets not monotone at %d", ns)
		}
	}
}

// An interval's quantiles and counts are those of the calls between the
// two snapshots, summed over the stream's clients.
func TestLiveInterval(t *testing.T) {
	l := NewLive()
	a, b := l.client(0, "read"), l.client(0, "read")
	w := l.client(1, "write")
	for i := 0; i < 1000; i++ {
		a.Record(time.Millisecond)
	}
	first := l.Snapshot()
	for i := 0; i < 98; i++ {
		b.Record(100 * time.Microsecond)
	}
	b.Record(10 * time.Millisecond)
	b.Record(10 * time.Millisecond)
	w.Error()
	second := l.Snapshot()
	if len(second) != 2 || second[0].Name != "read" || second[1].Name != "write" {
		t.Fatalf("streams %+v", second)
	}
	iv := second[0].Since(first[0])
	if iv.Calls != 100 || iv.Errors != 0 {
		t.Fatalf("interval %+v, want the 100 calls after the first snapshot", iv)
	}
	near := func(got, want time.Duration) bool { return math.Abs(float64(got-want)) <= float64(want)/16 }
	if !near(iv.P50, 100*time.Microsecond) || !near(iv.P99, 10*time.Millisecond) {
		t.Errorf("p50 %s p99 %s, want about 100µs and 10ms", iv.P50, iv.P99)
	}
	if wi := second[1].Since(LiveSnapshot{}); wi.Calls != 0 || wi.Errors != 1 || wi.P99 != 0 {
		t.Errorf("write interval %+v", wi)
	}
}

// A point run with a Live in its context counts its measured calls there,
// not its warm-up.
func TestRunPointFeedsLive(t *testing.T) {
	l := NewLive()
	ctx := WithLive(context.Background(), l)
	calls := []Call{func(context.Context) error { time.Sleep(100 * time.Microsecond); return nil }}
	res, err := RunPoint(ctx, Sampling{Warmup: 5, MinDuration: 50 * time.Millisecond, MinSamples: 10, MaxDuration: time.Second},
		[]Stream{{Op: "read", Calls: calls}})
	if err != nil {
		t.Fatal(err)
	}
	iv := l.Snapshot()[0].Since(LiveSnapshot{})
	if iv.Calls != res[0].Hist.TotalCount() {
		t.Errorf("live counted %d calls, the point measured %d", iv.Calls, res[0].Hist.TotalCount())
	}
}
