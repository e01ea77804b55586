package capacity

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestCapacityRowsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := []CapacityRow{
		{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Capacity: 1234.5, Low: 1200, High: 1270.25, Unit: UnitRate,
			LimitedBy: "latency", ServiceLevel: "p99<=50ms errors<=1% achieved>=95% late<=5%", Probes: 21, Seconds: 40.5},
		{Scenario: "capacity", Backend: "duckdb", Scale: "xs", Clients: 8, Op: "read", Capacity: 400, Low: 400, High: math.Inf(1), Unit: UnitClients,
			LimitedBy: "max_rate", ServiceLevel: "p99<=50ms errors<=1% achieved>=95% late<=5%", Probes: 3, Seconds: 3, BudgetSpent: true},
	}
	probe := CapacityProbeRow{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Probe: 1, Phase: "bracket", Pass: 1,
		Rate: 100, Seconds: 1, Count: 100, Errors: 2, Late: 3, Dropped: 0, Achieved: 98, AchievedPct: 98, PctlMs: 4.5, PctlLowMs: 4, PctlHighMs: 5,
		P50Ms: 1, P99Ms: 4.5, ErrorPct: 1.96, LatePct: 2.94, Held: false, Failed: "errors+late"}
	for _, r := range rows {
		if err := d.Emit(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Emit(probe); err != nil {
		t.Fatal(err)
	}
	if err := d.Emit(CapacityRow{Scenario: "capacity", Backend: "", Scale: "xs", Op: "read"}); err == nil {
		t.Error("a row without a backend was written")
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCapacity(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != rows[0] || got[1] != rows[1] {
		t.Errorf("read back\n %+v, want\n %+v", got, rows)
	}
	b, _ := os.ReadFile(filepath.Join(dir, CapacityFile))
	if !strings.Contains(string(b), "duckdb,xs,8,read,400,400,,clients,max_rate,") {
		t.Errorf("an open interval's high is written empty:\n%s", b)
	}
	probes, err := ReadCapacityProbes(dir)
	if err != nil || len(probes) != 1 || probes[0] != probe {
		t.Errorf("probes %+v (%v), want %+v", probes, err, probe)
	}
	empty := t.TempDir()
	if r, err := ReadCapacity(empty); err != nil || r != nil {
		t.Errorf("no capacity.csv: %v %v", r, err)
	}
}

// What a probe could not measure is written empty and read back as NaN,
// never as 0; so is a capacity a search could not decide.
func TestCapacityUnknownsEmpty(t *testing.T) {
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	probe := CapacityProbeRow{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Probe: 1, Phase: "bracket", Pass: 1,
		Rate: 100, Seconds: 1, Count: 0, Errors: 100, Achieved: 0, AchievedPct: 0, PctlMs: nan, PctlLowMs: nan, PctlHighMs: nan,
		P50Ms: nan, P99Ms: nan, ErrorPct: 100, Failed: "latency+errors+achieved"}
	row := CapacityRow{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Capacity: nan, Low: 0, High: 23.6,
		Unit: UnitClients, LimitedBy: "undecided", ServiceLevel: "p99<=50ms", Probes: 9, Seconds: 9}
	for _, r := range []results.Record{probe, row} {
		if err := d.Emit(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CapacityProbesFile)))
	if !strings.Contains(string(b), ",0,0,,,,,,100,0,false,") {
		t.Errorf("unknown percentiles are not written empty:\n%s", b)
	}
	probes, err := ReadCapacityProbes(dir)
	if err != nil || len(probes) != 1 {
		t.Fatalf("probes %+v: %v", probes, err)
	}
	p := probes[0]
	for name, v := range map[string]float64{"percentile": p.PctlMs, "low": p.PctlLowMs, "high": p.PctlHighMs, "p50": p.P50Ms, "p99": p.P99Ms} {
		if !math.IsNaN(v) {
			t.Errorf("%s read back as %v, want NaN", name, v)
		}
	}
	if p.AchievedPct != 0 || p.ErrorPct != 100 {
		t.Errorf("measured shares read back as %v and %v", p.AchievedPct, p.ErrorPct)
	}
	rows, err := ReadCapacity(dir)
	if err != nil || len(rows) != 1 || !math.IsNaN(rows[0].Capacity) || rows[0].High != 23.6 {
		t.Errorf("capacity rows %+v: %v", rows, err)
	}
}
