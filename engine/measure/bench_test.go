//go:build unix

package measure

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// noop is a package variable so the bare loops call it through a func
// value, exactly as RunPoint does.
var noop Call = func(context.Context) error { return nil }

var sink time.Duration

// cpuTime is the process's user+system CPU time. On a shared 2-core box
// wall time per op swings with other load; CPU time per op does not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOverhead compares RunPoint with a no-op call against bare loops
// calling the same no-op: the difference is the engine's per-call cost.
// For RunPoint ns/op is measured wall time per call per client; cpu-ns/op
// is process CPU per call (controller included); p50-ns is the latency the
// engine reports for a call that does nothing, its floor.
func BenchmarkOverhead(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		ctx := context.Background()
		c0 := cpuTime(b)
		for b.Loop() {
			_ = noop(ctx)
		}
		b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
	})
	b.Run("bare+clock", func(b *testing.B) {
		// The floor of any timed loop: one time.Now per call.
		ctx := context.Background()
		c0 := cpuTime(b)
		prev := time.Now()
		for b.Loop() {
			_ = noop(ctx)
			now := time.Now()
			sink += now.Sub(prev)
			prev = now
		}
		b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
	})
	for _, tc := range []struct {
		name    string
		clients int
		probe   time.Duration
		adapt   float64
		live    bool
	}{
		{"runpoint/clients=1", 1, 20 * time.Second, 0, false},
		{"runpoint/clients=1/no-probe", 1, 0, 0, false},
		{"runpoint/clients=2", 2, 20 * time.Second, 0, false},
		// Adaptive stopping adds one check per call; the snapshots come
		// only once the minimums are reached. A precision this tight is
		// met by a no-op's flat histogram right then.
		{"runpoint/clients=1/adaptive", 1, 20 * time.Second, 1e-9, false},
		// The live view of the progress lines: one atomic add per call.
		{"runpoint/clients=1/live", 1, 20 * time.Second, 0, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			calls := make([]Call, tc.clients)
			for i := range calls {
				calls[i] = noop
			}
			s := Sampling{MinSamples: b.N, MaxDuration: time.Minute, Probe: tc.probe, Precision: tc.adapt}
			ctx := context.Background()
			if tc.live {
				ctx = WithLive(ctx, NewLive())
			}
			c0 := cpuTime(b)
			b.ResetTimer()
			res, err := RunPoint(ctx, s, []Stream{{Op: "read", Calls: calls}})
			if err != nil {
				b.Fatal(err)
			}
			cpu := cpuTime(b) - c0
			r := res[0]
			if r.Count == 0 {
				b.Fatal("no calls")
			}
			b.ReportMetric(float64(r.Elapsed.Nanoseconds())*float64(tc.clients)/float64(r.Count), "ns/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(r.Count), "cpu-ns/op")
			b.ReportMetric(float64(r.P50.Nanoseconds()), "p50-ns")
		})
	}
}
