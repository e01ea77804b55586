package capacity

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// A probe's evidence written to logs/capacity-evidence.csv and read back
// is the side evidence.Rank ranks: the facts keyed by the probe, the
// split rebuilt (unknown parts NaN); the breaking point's why says what
// moved from the probe within to the one past, "no evidence moved" when
// the two said the same, and nothing of the database when a probe has
// no evidence on record (a run before the file).
func TestProbeEvidenceWhy(t *testing.T) {
	base := results.Row{Scenario: "cap", Backend: "postgres", Scale: "xs"}
	nan := math.NaN()
	probeEv := func(lock float64, execMs float64) kind.Evidence {
		return kind.Evidence{
			Facts: []results.EvidenceRow{
				{Source: "pg_stat_activity", Name: "wait:Lock:transactionid", Value: lock, Unit: "share"},
				{Source: "pg_stat_activity", Name: "wait:Timeout:PgSleep", Value: 1 - lock, Unit: "share"},
				{Source: "pg_stat_statements", Query: "SELECT 1, 2", Name: "calls", Value: 50, Unit: "calls"},
			},
			Split: &results.SplitRow{Clients: 2, Calls: 50, ObservedMs: nan, ServerExecMs: execMs, PlanningMs: 0.01, RoundTripMs: 0.05,
				RestMs: nan, RestIncludes: "", EngineCPUMs: 0.3},
		}
	}
	within := CapacityProbeRow{Scenario: "cap", Backend: "postgres", Scale: "xs", Clients: 2, Op: "read", Probe: 1, Rate: 40, Held: true, P50Ms: 20, P99Ms: 30}
	past := within
	past.Probe, past.Rate, past.Held, past.Failed = 2, 80, false, "latency"
	capRow := CapacityRow{Scenario: "cap", Backend: "postgres", Scale: "xs", Clients: 2, Op: "read", Capacity: 60, Unit: UnitRate}
	cases := []struct {
		name         string
		a, b         kind.Evidence
		want, notIn  string
		wantRecorded bool
	}{
		{"a lock", probeEv(0, 20), probeEv(0.5, 40), "wait events (share of active sessions): Lock:transactionid 0% -> 50%", "", true},
		{"nothing moved", probeEv(0.1, 20), probeEv(0.1, 20), "the database's evidence: " + evidence.NoEvidenceMoved, "wait events", true},
		{"no evidence", kind.Evidence{}, probeEv(0.5, 40), "", "wait events", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := results.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			for n, ev := range map[int]kind.Evidence{1: c.a, 2: c.b} {
				for _, r := range probeEvidenceRows(base, 2, "read", n, ev) {
					if err := d.Emit(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := d.Close(); err != nil {
				t.Fatal(err)
			}
			rows, err := ReadProbeEvidence(dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.b.Split != nil {
				sd := probeSide(rows, past)
				if len(sd.Splits) != 1 || sd.Splits[0].ServerExecMs != c.b.Split.ServerExecMs || !math.IsNaN(sd.Splits[0].ObservedMs) || sd.Splits[0].Calls != 50 || sd.Splits[0].Point != 2 {
					t.Errorf("the past probe's split read back: %+v", sd.Splits)
				}
				if len(sd.Facts) != 3 || sd.Facts[2].Query != "SELECT 1, 2" {
					t.Errorf("the past probe's facts read back: %+v", sd.Facts)
				}
			}
			bp, ok := breakOf(capRow, []CapacityProbeRow{within, past}, rows)
			if !ok || bp.recorded != c.wantRecorded {
				t.Fatalf("breakOf: %v, recorded %v", ok, bp.recorded)
			}
			all := strings.Join(bp.reasons, "\n")
			if bp.reasons[0] != "broke latency" || c.want != "" && !strings.Contains(all, c.want) || c.notIn != "" && strings.Contains(all, c.notIn) {
				t.Errorf("reasons:\n%s\nwant %q, not %q", all, c.want, c.notIn)
			}
			if line := breakLine(capRow, []CapacityProbeRow{within, past}, rows); c.want != "" && !strings.Contains(line, c.want) {
				t.Errorf("the log line lacks %q: %s", c.want, line)
			}
		})
	}
}

// A probe written twice (its search run again into the same directory)
// reads as its last attempt, whole: a fact only the first attempt had is
// gone.
func TestProbeEvidenceLastAttempt(t *testing.T) {
	base := results.Row{Scenario: "cap", Backend: "sqlite", Scale: "xs"}
	fact := func(name string, v float64) results.EvidenceRow {
		return results.EvidenceRow{Source: "sqlite3_stmt_status", Query: "SELECT 1", Name: name, Value: v}
	}
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	attempts := []struct {
		probe int
		facts []results.EvidenceRow
	}{
		{1, []results.EvidenceRow{fact("calls", 10), fact("sorts", 3)}},
		{2, []results.EvidenceRow{fact("calls", 20)}},
		{1, []results.EvidenceRow{fact("calls", 11)}}, // the search again
		{2, []results.EvidenceRow{fact("calls", 21), fact("vm_steps", 5)}},
	}
	for _, a := range attempts {
		for _, r := range probeEvidenceRows(base, 1, "read", a.probe, kind.Evidence{Facts: a.facts}) {
			if err := d.Emit(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadProbeEvidence(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d %s %g", r.Probe, r.Name, r.Value))
	}
	if want := "1 calls 11; 2 calls 21; 2 vm_steps 5"; strings.Join(got, "; ") != want {
		t.Errorf("read %q, want %q", strings.Join(got, "; "), want)
	}
}
