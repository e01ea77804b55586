package measure

import (
	"context"
	"testing"
	"time"
)

// noop is a package variable so the bare loops call it through a func
// value, exactly as RunPoint does.
var noop Call = func(context.Context) error { return nil }

var sink time.Duration

// BenchmarkOverhead compares RunPoint with a no-op call against bare loops
// calling the same no-op: the difference is the engine's per-call cost.
// RunPoint's ns/op is measured wall time per call per client.
func BenchmarkOverhead(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			_ = noop(ctx)
		}
	})
	b.Run("bare+clock", func(b *testing.B) {
		// The floor of any timed loop: one time.Now per call.
		ctx := context.Background()
		prev := time.Now()
		for b.Loop() {
			_ = noop(ctx)
			now := time.Now()
			sink += now.Sub(prev)
			prev = now
		}
	})
	for _, tc := range []struct {
		name    string
		clients int
		probe   time.Duration
	}{
		{"runpoint/clients=1", 1, 20 * time.Second},
		{"runpoint/clients=1/no-probe", 1, 0},
		{"runpoint/clients=2", 2, 20 * time.Second},
	} {
		b.Run(tc.name, func(b *testing.B) {
			calls := make([]Call, tc.clients)
			for i := range calls {
				calls[i] = noop
			}
			s := Sampling{MinSamples: b.N, MaxDuration: time.Minute, Probe: tc.probe}
			b.ResetTimer()
			res, err := RunPoint(context.Background(), s, []Stream{{Op: "read", Calls: calls}})
			if err != nil {
				b.Fatal(err)
			}
			r := res[0]
			if r.Count == 0 {
				b.Fatal("no calls")
			}
			b.ReportMetric(float64(r.Elapsed.Nanoseconds())*float64(tc.clients)/float64(r.Count), "ns/op")
			b.ReportMetric(float64(r.P50.Nanoseconds()), "p50-ns")
		})
	}
}
