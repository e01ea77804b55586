package capacity

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// TestScalabilityFits: summary.md fits the law to a concurrency sweep
// (timings.csv) and to a clients search's probes (logs/), each on its
// own row, from throughput of known σ and κ; a rate search's probes
// are not a scalability curve and get no fit.
func TestScalabilityFits(t *testing.T) {
	dir := t.TempDir()
	const lambda, sigma, kappa = 1000.0, 0.05, 0.002
	var timings strings.Builder
	timings.WriteString(results.TimingsHeader + "\n")
	// Each point carries a little noise: 1% up, none, 1% down.
	for i, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		x := usl.Throughput(float64(n), lambda, sigma, kappa) * (1 + 0.01*float64(i%3-1))
		fmt.Fprintf(&timings, "concurrency_sweep,postgres,s,1000,%d,read,100,1,1,1,1,%.3f,0,1\n", n, x)
	}
	var probes strings.Builder
	probes.WriteString(CapacityProbesHead + "\n")
	for i, n := range []int{1, 2, 4, 8, 16, 32, 24, 20, 22, 22} {
		x := usl.Throughput(float64(n), 2*lambda, 2*sigma, kappa/2) * (1 + 0.01*float64(i%3-1))
		fmt.Fprintf(&probes, "capacity_clients,postgres,s,%d,read,%d,search,1,0,2,100,0,0,0,%.3f,0,1,1,1,1,1,0,0,true,\n", n, i+1, x)
	}
	probes.WriteString("capacity,postgres,s,8,read,1,search,1,500,2,1000,0,0,0,499,99.8,1,1,1,1,1,0,0,true,\n")
	files := map[string]string{
		results.TimingsFile: timings.String(),
		CapacityFile: CapacityHeader + "\n" +
			"capacity_clients,postgres,s,0,read,22,20,24,clients,throughput,p99<=5ms,10,20,false\n" +
			"capacity,postgres,s,8,read,500,450,550,ops/s,latency,p99<=5ms,1,2,false\n",
		CapacityProbesFile: probes.String(),
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cs := curves(r)
	if len(cs) != 1 || cs[0].Scenario != "capacity_clients" || cs[0].From != fitProbes {
		t.Fatalf("curves %+v, want the clients search's alone (a rate search has none)", cs)
	}
	f, err := usl.FitPoints(cs[0].Points)
	if err != nil {
		t.Fatal(err)
	}
	if w := [2]float64{2 * sigma, kappa / 2}; f.Sigma.Low > w[0] || w[0] > f.Sigma.High || f.Kappa.Low > w[1] || w[1] > f.Kappa.High {
		t.Errorf("σ %+v κ %+v, want %g and %g inside", f.Sigma, f.Kappa, w[0], w[1])
	}
	var b bytes.Buffer
	if err := report.SummaryMD(r, &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, s := range []string{"## Scalability fit", "| concurrency_sweep | postgres | s | read | sweep |", "| capacity_clients | postgres | s | read | capacity probes |"} {
		if !strings.Contains(md, s) {
			t.Errorf("summary.md lacks %q:\n%s", s, md)
		}
	}
}

// A search that could not decide shows no capacity in the "where it falls
// over" table, and a probe without a percentile is left out of the knee.
func TestCapacityTableUndecided(t *testing.T) {
	nan := math.NaN()
	row := CapacityRow{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Op: "read", Capacity: nan, Low: 0, High: 23.6,
		Unit: UnitRate, LimitedBy: "undecided", Probes: 9, Seconds: 9}
	probes := []CapacityProbeRow{
		{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Op: "read", Rate: 1, PctlMs: nan, Held: false},
		{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Op: "read", Rate: 2, PctlMs: 1, Held: true},
		{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Op: "read", Rate: 4, PctlMs: 1.5, Held: true},
	}
	tb := capacityTable(&Searches{Rows: []CapacityRow{row}, Probes: probes})
	got := strings.Join(tb.Rows[0], " | ")
	for _, w := range []string{"cannot decide", "undecided: the passes' edges disagree", "0 to 23.6"} {
		if !strings.Contains(got, w) {
			t.Errorf("row %q lacks %q", got, w)
		}
	}
	if k := knee(probes); k != 4 {
		t.Errorf("knee %v, want 4 (the probe without a percentile left out)", k)
	}
}
