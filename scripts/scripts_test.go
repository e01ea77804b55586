// Package scripts_test runs the repository's scripts on fixtures.
package scripts_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaleCosts: per-datom costs from loads.csv, p50 growth exponents
// from timings.csv, and their extrapolation to a larger scale; ceilings
// left out.
func TestScaleCosts(t *testing.T) {
	out, err := exec.Command("bash", "scale-costs.sh", filepath.Join("testdata", "scale-costs"), "1000000000").CombinedOutput()
	if err != nil {
		t.Fatalf("scale-costs.sh: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{
		// 100 s of load and 50 s after it for 1e8 datoms: 1,500 ns, a third after.
		"| lite | l | 100000000 | 150.0 s | 1500 | 50.0 s | 33% | 200 | 18.6 GiB |",
		"| pg | m | 10000000 | 11.5 s | 1150 | 3.5 s | 30% | 300 | 2.8 GiB |",
		// Extrapolated from each backend's largest scale that loaded.
		"| lite | l | 25m00s | 186.3 GiB |",
		"| pg | m | 19m10s | 279.4 GiB |",
		// 1 ms at 1e7, 10 ms at 1e8: linear, 100 ms at 1e9; flat stays flat.
		"| lite | scan | read | 1 | 1.000 | 10.000 | 1.00 | 100.000 |",
		"| lite | lookup | read | 1 | 0.500 | 0.500 | 0.00 | 0.500 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "ceiling") || strings.Contains(got, "| pg | l |") {
		t.Errorf("a ceiling row was counted:\n%s", got)
	}
	if _, err := exec.Command("bash", "scale-costs.sh", filepath.Join("testdata", "missing")).CombinedOutput(); err == nil {
		t.Error("a directory without loads.csv was accepted")
	}
}
