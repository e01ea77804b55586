package threshold

import (
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The thresholds the interrupted part of a resumed run judged are not
// reported unmatched at its end, in their cells only, and one with abort
// it crossed still ends its scenario there.
func TestResumedThresholds(t *testing.T) {
	fast := NewSpec("fast")
	fast.Scenario, fast.P99Ms, fast.Abort = "s", 1, true
	gate := NewSpec("gate")
	gate.Scenario, gate.P99Ms, gate.Abort = "t", 1, true
	g := NewGates([]Spec{fast, gate})
	sqlite, duckdb := Cell{Backend: "sqlite", Scale: "xs"}, Cell{Backend: "duckdb", Scale: "xs"}
	if n := len(g.Unmatched([]Cell{sqlite})); n != 2 {
		t.Fatalf("%d SKIP lines before the resume, want 2", n)
	}
	g.Resumed([]results.CheckLine{
		{Status: results.Threshold, Scenario: "s", Backend: "sqlite", Scale: "xs", Name: "threshold fast (clients=1 read)", Detail: "p99 2 ms > 1 ms"},
		{Status: results.Pass, Scenario: "t", Backend: "sqlite", Scale: "xs", Name: "threshold gate (clients=1 read)"},
		{Status: results.Pass, Scenario: "s", Backend: "duckdb", Scale: "xs", Name: "names"},
	})
	if got := g.Unmatched([]Cell{sqlite}); len(got) != 0 {
		t.Errorf("thresholds judged before the resume reported unmatched: %+v", got)
	}
	if got := g.Unmatched([]Cell{duckdb}); len(got) != 2 {
		t.Errorf("%d SKIP lines in a cell no threshold judged, want 2", len(got))
	}
	if g.AbortedBy("s", "sqlite", "xs") == "" {
		t.Error("an aborting threshold crossed before the resume does not end its scenario")
	}
	if why := g.AbortedBy("t", "sqlite", "xs"); why != "" {
		t.Errorf("a threshold that passed ended its scenario: %s", why)
	}
	var none *Gates
	none.Resumed(nil)
}
