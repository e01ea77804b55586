package truth_test

import (
	"context"
	"testing"

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
	datagentest.ReportCPU(b, cpu0)
}
