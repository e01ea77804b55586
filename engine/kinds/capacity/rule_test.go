package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func TestCompareCapacity(t *testing.T) {
	row := func(be string, c, lo, hi float64) CapacityRow {
		return CapacityRow{Scenario: "capacity", Backend: be, Scale: "xs", Clients: 8, Op: "read", Capacity: c, Low: lo, High: hi,
			LimitedBy: "latency", ServiceLevel: "p99<=50ms errors<=1% achieved>=95% late<=5%", Probes: 20, Seconds: 30}
	}
	write := func(rows ...CapacityRow) string {
		dir := t.TempDir()
		d, err := results.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := d.Emit(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old := write(row("sqlite", 1000, 950, 1050), row("duckdb", 500, 400, 600), row("postgres", 2000, 1900, 2100), row("gone", 10, 9, 11), row("open", 300, 300, math.Inf(1)))
	new := write(row("sqlite", 700, 650, 750), row("duckdb", 420, 300, 540), row("postgres", 2500, 2400, 2600), row("open", 200, 190, 210))
	verdict := compare.Verdict{Method: compare.MethodThreshold, ThresholdPct: 10}
	if err := compareCapacity(&verdict, loadRun(t, old), loadRun(t, new)); err != nil {
		t.Fatal(err)
	}
	out := verdict.String()
	for _, want := range []string{
		"REGRESSION capacity sqlite xs clients=8 read (95% intervals 950.0 to 1,050 -> 650.0 to 750.0): capacity 1,000 -> 700.0 ops/s (-30.0%)",
		"note: capacity duckdb xs clients=8 read: capacity 500.0 -> 420.0 ops/s (-16.0%) CANNOT BE DECIDED: the intervals overlap",
		"note: capacity postgres xs clients=8 read: capacity rose 2,000 -> 2,500 ops/s (+25.0%)",
		"REGRESSION capacity gone xs clients=8 read (capacity): missing from NEW",
		// An open interval (every probe held) that NEW now bounds below it.
		"REGRESSION capacity open xs clients=8 read (95% intervals 300.0 to ? -> 190.0 to 210.0): capacity 300.0 -> 200.0 ops/s (-33.3%)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if len(verdict.Findings) != 3 || verdict.Compared != 4 {
		t.Errorf("%d findings, %d compared: %+v", len(verdict.Findings), verdict.Compared, verdict.Findings)
	}
}

// A search that could not decide its capacity (capacity written empty,
// limited by undecided) is neither a regression nor a pass: it is noted
// and counted as undecided, never compared as a capacity of 0.
func TestCompareUndecidedCapacity(t *testing.T) {
	write := func(c, lo, hi float64, limit string) string {
		dir := t.TempDir()
		d, err := results.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Emit(CapacityRow{Scenario: "capacity", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Capacity: c, Low: lo, High: hi,
			LimitedBy: limit, Unit: UnitRate, Probes: 9, Seconds: 9}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	decided, undecided := write(1000, 950, 1050, "latency"), write(math.NaN(), 0, 900, "undecided")
	for _, tt := range []struct{ old, new, side string }{{decided, undecided, "NEW"}, {undecided, decided, "OLD"}} {
		verdict := compare.Verdict{Method: compare.MethodThreshold, ThresholdPct: 10}
		if err := compareCapacity(&verdict, loadRun(t, tt.old), loadRun(t, tt.new)); err != nil {
			t.Fatal(err)
		}
		out := verdict.String()
		want := "capacity CANNOT BE DECIDED: the search of " + tt.side + " found no capacity (limited by undecided)"
		if !strings.Contains(out, want) || verdict.Regressed() || verdict.Undecided() != 1 {
			t.Errorf("%s undecided: regressed %v, %d undecided, want %q in\n%s", tt.side, verdict.Regressed(), verdict.Undecided(), want, out)
		}
	}
}

// loadRun loads the results directory dir.
func loadRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
