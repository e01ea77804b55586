package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCapacityRowsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d, err := Open(dir)
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
