package evidence

import (
	"math"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// writeRun writes facts and splits through a results directory, as a run
// does, and loads it back.
func writeRun(t *testing.T, recs ...results.Record) *results.Run {
	t.Helper()
	dir := t.TempDir()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := d.Emit(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestLoadedThroughResultsLoad(t *testing.T) {
	nan := math.NaN()
	run := writeRun(t,
		results.EvidenceRow{Scenario: "lookup", Backend: "postgres", Scale: "s", Point: 1, Source: "pg_stat_statements", Query: "SELECT 1", Name: "exec_ms", Value: 2.5, Unit: "ms"},
		results.EvidenceRow{Scenario: "lookup", Backend: "sqlite", Scale: "s", Point: 1, Source: "sqlite3_stmt_status", Query: "SELECT 1", Name: "fullscan_steps", Value: 99},
		results.SplitRow{Scenario: "lookup", Backend: "postgres", Scale: "s", Point: 1, Clients: 1, Calls: 10, ObservedMs: 0.5, ServerExecMs: 0.05, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.35, RestIncludes: "planning", EngineCPUMs: 0.01},
		results.SplitRow{Scenario: "lookup", Backend: "sqlite", Scale: "s", Point: 1, Clients: 1, Calls: 10, ObservedMs: 0.2, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.001, RestMs: 0.199, RestIncludes: "server_exec+planning", EngineCPUMs: 0.2},
		// A rerun of the postgres point supersedes the first row.
		results.SplitRow{Scenario: "lookup", Backend: "postgres", Scale: "s", Point: 1, Clients: 1, Calls: 10, ObservedMs: 0.6, ServerExecMs: 0.05, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.45, RestIncludes: "planning", EngineCPUMs: 0.01},
	)
	l := Of(run)
	if len(l.Facts) != 2 || l.Facts[0].Name != "exec_ms" || l.Facts[0].Value != 2.5 || l.Facts[1].Value != 99 {
		t.Fatalf("facts %+v", l.Facts)
	}
	if len(l.Splits) != 2 {
		t.Fatalf("splits %+v, want the rerun to supersede", l.Splits)
	}
	var pg results.SplitRow
	for _, s := range l.Splits {
		if s.Backend == "postgres" {
			pg = s
		}
	}
	if pg.ObservedMs != 0.6 || !math.IsNaN(pg.PlanningMs) || pg.RestIncludes != "planning" || pg.ServerExecMs != 0.05 {
		t.Fatalf("postgres split %+v", pg)
	}
	v := variant(l, "sqlite", "B").(*Loaded)
	if len(v.Facts) != 1 || v.Facts[0].Backend != "B" || len(v.Splits) != 1 || v.Splits[0].Backend != "B" {
		t.Fatalf("variant %+v", v)
	}
}

func TestOfRunWithoutEvidence(t *testing.T) {
	run := writeRun(t)
	if l := Of(run); len(l.Facts) != 0 || len(l.Splits) != 0 {
		t.Fatalf("got %+v", l)
	}
}
