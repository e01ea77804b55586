package capacity

import (
	"context"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// The search's own cost: a capacity probe is an open_loop window plus the
// observation and the judgement. Both at 10,000 calls/s over 8 clients
// calling a no-op, reporting the client CPU per call (the process's, over
// the measured window) and the achieved rate as a share of the offered
// one. Run them side by side:
//
//	go test -run '^$' -bench 'OpenLoopWindow|CapacityProbe' -benchtime 3x ./engine/kinds/capacity/
const benchRate = 10000

func noop(context.Context) error { return nil }

func window(b *testing.B) measure.Result {
	calls := make([]measure.Call, 8)
	for i := range calls {
		calls[i] = noop
	}
	res, err := measure.RunTimed(context.Background(), measure.Timed{Warmup: 1, Duration: time.Second, LateBound: 10 * time.Millisecond, Grace: time.Second},
		[]measure.TimedStream{{Op: "read", Rate: benchRate, Calls: calls}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return res[0]
}

func reportBench(b *testing.B, cpu time.Duration, calls int64, achieved float64) {
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(calls), "cpu-ns/call")
	b.ReportMetric(100*achieved/float64(b.N)/benchRate, "achieved-%")
}

func BenchmarkOpenLoopWindow(b *testing.B) {
	var cpu time.Duration
	var calls int64
	var achieved float64
	for b.Loop() {
		r := window(b)
		cpu += r.ClientCPU
		calls += r.Count + r.Errors
		achieved += r.Throughput
	}
	reportBench(b, cpu, calls, achieved)
}

func BenchmarkCapacityProbe(b *testing.B) {
	sl := ServiceLevel{Percentile: 99, MaxLatency: 50 * time.Millisecond, MaxErrorPct: 1, MinAchievedPct: 95, MaxLatePct: 5}
	var cpu, judge time.Duration
	var calls int64
	var achieved float64
	held := 0
	for b.Loop() {
		r := window(b)
		t0 := time.Now()
		o := Observe(r, benchRate, sl.Percentile)
		if len(sl.Judge(o)) == 0 {
			held++
		}
		judge += time.Since(t0)
		cpu += r.ClientCPU
		calls += r.Count + r.Errors
		achieved += o.Achieved
	}
	reportBench(b, cpu, calls, achieved)
	b.ReportMetric(float64(judge.Microseconds())/float64(b.N), "judge-µs/probe")
	b.ReportMetric(100*float64(held)/float64(b.N), "held-%")
}
