package evidence

import (
	"math"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// thresholdRun is a sweep of 1 and 4 clients whose 4-client point crossed
// a threshold the 1-client one passed, each point with the given facts.
func thresholdRun(t *testing.T, one, four map[string]float64) *results.Run {
	t.Helper()
	nan := math.NaN()
	var recs []results.Record
	for i, c := range []int{1, 4} {
		row := results.Row{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: c, Op: "read", Count: 100, Throughput: 1000, Reps: 1}
		recs = append(recs, results.Timing(row),
			results.SplitRow{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Point: i + 1, Clients: c, Calls: 100, ObservedMs: 0.2,
				ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.01, RestMs: 0.19, EngineCPUMs: nan})
		for name, v := range []map[string]float64{one, four}[i] {
			recs = append(recs, results.EvidenceRow{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Point: i + 1, Source: "sqlite3_stmt_status", Query: "SELECT e", Name: name, Value: v})
		}
	}
	recs = append(recs,
		results.CheckLine{Status: results.Pass, Scenario: "lookup", Backend: "sqlite", Scale: "xs", Name: "threshold gate (clients=1 read)", Detail: "p99 1 <= 2 ms"},
		results.CheckLine{Status: results.Threshold, Scenario: "lookup", Backend: "sqlite", Scale: "xs", Name: "threshold gate (clients=4 read)", Detail: "p99 3 > 2 ms"})
	return writeRun(t, recs...)
}

// Against the point that passed: what moved is named, and when nothing
// did, "no evidence moved" is said in summary.md.
func TestThresholdAgainstPassed(t *testing.T) {
	same := map[string]float64{"calls": 100, "vm_steps": 4400, "fullscan_steps": 0}
	scanned := map[string]float64{"calls": 100, "vm_steps": 90000, "fullscan_steps": 100000}
	for _, tc := range []struct {
		name       string
		one, four  map[string]float64
		first, say string
	}{
		{"work moved", same, scanned, "work per call: full-scan steps 0 -> 1000, VM steps 44 -> 900", ""},
		{"nothing moved", same, same, "", "  - why, against clients=1 read, which passed: no evidence moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := thresholdRun(t, tc.one, tc.four)
			ws := ThresholdWhy(run)
			if len(ws) != 1 {
				t.Fatalf("%d explained, want the crossed one", len(ws))
			}
			for c, w := range ws {
				if !strings.Contains(c.Name, "clients=4") || w.Against != "clients=1 read, which passed" {
					t.Fatalf("%s against %q", c.Name, w.Against)
				}
				if tc.first == "" && len(w.Reasons) != 0 || tc.first != "" && (len(w.Reasons) == 0 || w.Reasons[0] != tc.first) {
					t.Errorf("reasons %q, want first %q", w.Reasons, tc.first)
				}
			}
			if tc.say != "" {
				var md strings.Builder
				if err := report.SummaryMD(run, &md); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(md.String(), tc.say) {
					t.Errorf("summary lacks %q:\n%s", tc.say, md.String())
				}
			}
		})
	}
}
