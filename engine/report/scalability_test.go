package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// TestSweepFit: summary.md fits the law to a concurrency sweep
// (timings.csv) from throughput of known σ and κ. The kinds' curves
// (capacity's clients searches) are fitted beside it: see their tests.
func TestSweepFit(t *testing.T) {
	dir := t.TempDir()
	const lambda, sigma, kappa = 1000.0, 0.05, 0.002
	var timings strings.Builder
	timings.WriteString(results.TimingsHeader + "\n")
	// Each point carries a little noise: 1% up, none, 1% down.
	for i, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		x := usl.Throughput(float64(n), lambda, sigma, kappa) * (1 + 0.01*float64(i%3-1))
		fmt.Fprintf(&timings, "concurrency_sweep,postgres,s,1000,%d,read,100,1,1,1,1,%.3f,0,1\n", n, x)
	}
	if err := os.WriteFile(filepath.Join(dir, results.TimingsFile), []byte(timings.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	fits := sweepFits(r.Points())
	if len(fits) != 1 || fits[0].From != fitSweep {
		t.Fatalf("fits %+v, want the sweep's", fits)
	}
	if f := fits[0].Fit; f.Sigma.Low > sigma || sigma > f.Sigma.High || f.Kappa.Low > kappa || kappa > f.Kappa.High {
		t.Errorf("σ %+v κ %+v, want %g and %g inside", f.Sigma, f.Kappa, sigma, kappa)
	}
	if md := summaryOf(t, dir); !strings.Contains(md, "| concurrency_sweep | postgres | s | read | sweep |") {
		t.Errorf("summary.md lacks the sweep's fit:\n%s", md)
	}
}
