package truth_test

import (
	"context"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// BenchmarkComputeTruth computes the test dataset's 12 truths at s on
// GOMAXPROCS cores.
func BenchmarkComputeTruth(b *testing.B) {
	ds := datagentest.Finished(b, datagentest.ScaleS, false)
	cpu0 := datagentest.CPUTime()
	for b.Loop() {
		if _, err := truth.Compute(context.Background(), ds, 0); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports process CPU time per op.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := datagentest.CPUTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
