package examples

import (
	"path/filepath"
	"strings"
	"testing"
)

// fleetScenarios is how many scenarios (one check each) fleet.hcl has.
const fleetScenarios = 10

// TestFleetPassesOnEveryBackend applies examples/fleet at xs on SQLite,
// DuckDB and (with MENTAT_SPEC_PG_DSN) PostgreSQL: exit 0, every check PASS.
func TestFleetPassesOnEveryBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("loads three databases")
	}
	for _, b := range backends() {
		t.Run(b, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "fleet"), "examples", "fleet", "fleet.hcl")
			shortSampling(t, spec)
			r := apply(t, spec, "-var", `backends=["`+b+`"]`)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			if len(r.checks) != fleetScenarios {
				t.Fatalf("%d check lines, want %d: %v", len(r.checks), fleetScenarios, r.checks)
			}
			for _, l := range r.checks {
				if !strings.HasPrefix(l, "PASS ") || !strings.Contains(l, " "+b+" xs ") {
					t.Errorf("checks.txt: %s", l)
				}
			}
		})
	}
}

// TestFleetWrongAnswersFail edits one query (or the spec) of a copy of
// the fleet example per feature so that it gives a wrong answer with a
// plausible shape, and requires apply to exit 1 with that scenario's
// check FAILing, a readable detail, and every other check passing.
func TestFleetWrongAnswersFail(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database per case")
	}
	tests := []struct {
		feature  string
		file     string // under examples/fleet
		old, new string
		scenario string
		detail   []string
	}{
		{"id set of a changed truth: e + 1 with the right count", "sql/status_since.sql",
			"SELECT DISTINCT e AS route", "SELECT DISTINCT e + 1 AS route", "status_since",
			[]string{"ids in route as expected, but not the expected ids; first difference at id #1: got 3000000000", ", want 3000000000"}},
		{"time function and between: the window one day longer", "fleet.hcl",
			"to = epoch_ms(local.window_to)", `to = epoch_ms(timeadd(local.window_to, "1d"))`, "busy_window",
			[]string{"distinct ids in route, want"}},
		{"or filter: one branch dropped", "sql/busy_window.sql",
			"AND (st.v = 'completed' OR cap.v >= :big)", "AND st.v = 'completed'", "busy_window",
			[]string{"distinct ids in route, want"}},
		{"in filter: one value too many", "sql/zone_stops.sql",
			"IN ('north', 'east')", "IN ('north', 'east', 'south')", "zone_stops",
			[]string{"distinct ids in stop, want"}},
		{"sum grouped through three ref hops", "sql/parcels_per_city.sql",
			"SUM(p.v) AS parcels", "MAX(p.v) AS parcels", "parcels_by_city",
			[]string{"parcels", "want"}},
		{"avg grouped through a ref", "sql/capacity_per_city.sql",
			"AVG(CAST(c.v AS DOUBLE PRECISION))", "MAX(CAST(c.v AS DOUBLE PRECISION))", "capacity_by_city",
			[]string{"want"}},
		{"max of a derived instant", "sql/extremes.sql",
			"MAX(v) FROM cur_int", "MIN(v) FROM cur_int", "extremes",
			[]string{"last_end = "}},
		{"path in a sample: the van's plate in place of its depot's code", "sql/van_by_plate.sql",
			"dc.v AS depot_code", "p.v AS depot_code", "van_lookup",
			[]string{`[VAN-`, `depot_code = "VAN-`, `want "DEP-`}},
		{"process history: every state ever asserted counted", "sql/routes_per_status.sql",
			"FROM cur_text\nWHERE a =", "FROM log_text\nWHERE added AND a =", "status_counts",
			[]string{"planned = ", "want"}},
		{"time attribute: the planned end in place of the last update", "sql/route_by_code.sql",
			"up.v AS updated", "pe.v AS updated", "route_lookup",
			[]string{"[R-", "updated = "}},
		{"derived attribute: the last update in place of the planned end", "sql/route_by_code.sql",
			"pe.v AS planned_end", "up.v AS planned_end", "route_lookup",
			[]string{"[R-", "planned_end = "}},
		{"dependent data: the stops of the next route", "sql/route_stops.sql",
			"AND r.v = :route", "AND r.v = :route + 1", "route_stops",
			[]string{"[R-", "first differing row (#1, rows sorted): got (4000000000", "| want (4000000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.feature, func(t *testing.T) {
			dir := filepath.Join(workspace(t, "fleet"), "examples", "fleet")
			spec := filepath.Join(dir, "fleet.hcl")
			shortSampling(t, spec)
			edit(t, filepath.Join(dir, filepath.FromSlash(tt.file)), tt.old, tt.new)
			r := apply(t, spec)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
			}
			failed := 0
			for _, l := range r.checks {
				if strings.HasPrefix(l, "FAIL "+tt.scenario+" sqlite xs ") {
					failed++
					for _, d := range tt.detail {
						if !strings.Contains(l, d) {
							t.Errorf("FAIL line lacks %q:\n%s", d, l)
						}
					}
					if strings.Contains(l, "e+") {
						t.Errorf("FAIL line prints a number in scientific notation:\n%s", l)
					}
				} else if !strings.HasPrefix(l, "PASS ") {
					t.Errorf("unexpected check line: %s", l)
				}
			}
			if failed != 1 {
				t.Errorf("%d FAIL lines for %s, want 1: %v", failed, tt.scenario, r.checks)
			}
		})
	}
}
