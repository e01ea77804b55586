package adapter

import (
	"context"
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// TestBucketWithinAThirtySecond: a histogram bucket's middle is within
// 1/32 of every value in it, from a nanosecond to an hour.
func TestBucketWithinAThirtySecond(t *testing.T) {
	for _, ns := range []int64{0, 1, 15, 16, 17, 31, 32, 33, 1000, 9_600, 31_200, 123_456_789, 3_600_000_000_000, math.MaxInt64} {
		i := bucketOf(ns)
		if i < 0 || i >= histBuckets {
			t.Fatalf("bucketOf(%d) = %d, outside [0, %d)", ns, i, histBuckets)
		}
		if mid := bucketMid(i); math.Abs(mid-float64(ns)) > float64(ns)/32+0.5 {
			t.Errorf("bucketOf(%d) = %d, whose middle %.0f is off by more than 1/32", ns, i, mid)
		}
	}
	if bucketOf(1000) >= bucketOf(1100) {
		t.Errorf("buckets do not grow with the value")
	}
}

// evidenceOf runs n calls of a statement between StartEvidence and Stop,
// with the statements log reset in between (the runner's order may put
// it anywhere), and returns the facts by name.
func evidenceOf(t *testing.T, b drivers.Backend, n int) map[string]drivers.Evidence {
	t.Helper()
	ctx := context.Background()
	_, st := prepared(t, b, "SELECT ? + 1")
	if _, err := st.Query(ctx, []any{int64(0)}, nil); err != nil { // before the stretch: not counted
		t.Fatal(err)
	}
	p, err := b.(drivers.EvidenceCollector).StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.(drivers.StatementStats).ResetStatementStats(ctx)
	for i := 0; i < n; i++ {
		if _, err := st.Query(ctx, []any{int64(i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := p.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]drivers.Evidence{}
	for _, e := range ev {
		if e.Source != EvidenceSource {
			t.Errorf("fact %s from %q, want %q", e.Name, e.Source, EvidenceSource)
		}
		by[e.Name] = e
	}
	return by
}

// TestEvidenceHasStoreTime: the reference adapter's store time is the
// point's execution time (exec_ms, which the latency split reads), with
// its p50 and p99, beside the round trip that holds it.
func TestEvidenceHasStoreTime(t *testing.T) {
	by := evidenceOf(t, open(t, reference(t), nil), 50)
	if c := by[drivers.EvidenceCalls]; c.Value != 50 || c.Query != "SELECT ? + 1" {
		t.Errorf("calls: %+v, want 50 of SELECT ? + 1", c)
	}
	exec, rt := by[drivers.EvidenceExecMs].Value, by["round_trip_ms"].Value
	if exec <= 0 || rt <= exec {
		t.Errorf("exec_ms %v, round_trip_ms %v: want 0 < store time < round trip", exec, rt)
	}
	p50, p99 := by["store_p50_ms"].Value, by["store_p99_ms"].Value
	if p50 <= 0 || p99 < p50 || p50 > exec {
		t.Errorf("store p50 %v ms, p99 %v ms, total %v ms: want 0 < p50 <= p99 and p50 within the total", p50, p99, exec)
	}
	if by["cut_calls"].Value != 0 || by["fresh_adapters"].Value != 0 {
		t.Errorf("cut calls %v, fresh adapters %v; want none", by["cut_calls"].Value, by["fresh_adapters"].Value)
	}
}

// TestEvidenceWithoutStoreTime: an adapter that reports no store time
// gives the calls and the round trip, and no execution time: the split
// then says it is unknown rather than zero.
func TestEvidenceWithoutStoreTime(t *testing.T) {
	by := evidenceOf(t, open(t, faulty(t), map[string]string{"FAULT": "no_store_time"}), 20)
	if by[drivers.EvidenceCalls].Value != 20 || by["round_trip_ms"].Value <= 0 {
		t.Errorf("calls %v, round trip %v ms; want 20 and some time", by[drivers.EvidenceCalls].Value, by["round_trip_ms"].Value)
	}
	for _, n := range []string{drivers.EvidenceExecMs, "store_p50_ms", "store_p99_ms"} {
		if e, ok := by[n]; ok {
			t.Errorf("%s = %v from an adapter without store time", n, e.Value)
		}
	}
}
