package evidence

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

const sqlitePlanIndexed = `-- SQL
SELECT e FROM cur_text WHERE a = ? AND v = ?

-- parameters
$1 = 3

-- plan
SEARCH u USING COVERING INDEX cur_text_avet (a=? AND v=?)
SCALAR SUBQUERY 2
  SEARCH attrs USING COVERING INDEX sqlite_autoindex_attrs_1 (ident=?)
`

const sqlitePlanScan = `-- SQL
SELECT e FROM cur_text WHERE a = ? AND v = ?

-- parameters
$1 = 7

-- plan
SCAN u
SCALAR SUBQUERY 5
  SEARCH attrs USING COVERING INDEX sqlite_autoindex_attrs_1 (ident=?)
`

const pgPlanIndex = `{"sql": "SELECT 1", "parameters": ["3"], "plan": [{"Plan": {"Node Type": "Nested Loop", "Join Type": "Inner", "Total Cost": 8.5,
 "Plans": [{"Node Type": "Index Scan", "Relation Name": "cur_text", "Index Name": "cur_text_avet", "Actual Rows": 1},
           {"Node Type": "Index Scan", "Relation Name": "cur_text", "Index Name": "cur_text_aevt", "Actual Rows": 1}]}}]}`

const pgPlanSeq = `{"sql": "SELECT 1", "parameters": ["9"], "plan": [{"Plan": {"Node Type": "Nested Loop", "Join Type": "Inner", "Total Cost": 1800.25,
 "Plans": [{"Node Type": "Seq Scan", "Relation Name": "cur_text", "Actual Rows": 1},
           {"Node Type": "Index Scan", "Relation Name": "cur_text", "Index Name": "cur_text_aevt", "Actual Rows": 1}]}}]}`

func TestPlanShape(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, file, text string
		want             []string
	}{
		{"sqlite", "a.txt", sqlitePlanIndexed, []string{"SEARCH u USING COVERING INDEX cur_text_avet (a=? AND v=?)", "SCALAR SUBQUERY N", "SEARCH attrs USING COVERING INDEX sqlite_autoindex_attrs_N (ident=?)"}},
		{"postgres", "a.json", pgPlanIndex, []string{"Nested Loop Inner", "Index Scan on cur_text using cur_text_avet", "Index Scan on cur_text using cur_text_aevt"}},
		{"duckdb boxes", "d.txt", "-- plan\n┌───────────┐\n│ HASH_JOIN │\n│  ~120 rows │\n└─────┬─────┘\n┌─────┴─────┐\n│ SEQ_SCAN  │\n│  0.0012s  │\n└───────────┘\n", []string{"HASH_JOIN", "SEQ_SCAN", "Ns"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := planShape(write(tc.file, tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("shape %q, want %q", got, tc.want)
			}
		})
	}
}

// whyRun writes a results directory of one point's split and facts and
// its plan of q1, and loads it.
func whyRun(t *testing.T, plan, ext string, split results.SplitRow, facts map[string]float64) *results.Run {
	t.Helper()
	key := results.Key{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: 1, Op: "read"}
	split.Scenario, split.Backend, split.Scale, split.Point, split.Clients = key.Scenario, key.Backend, key.Scale, 1, 1
	recs := []results.Record{split}
	for name, v := range facts {
		recs = append(recs, results.EvidenceRow{Scenario: key.Scenario, Backend: key.Backend, Scale: key.Scale, Point: 1, Source: "sqlite3_stmt_status", Query: "SELECT e", Name: name, Value: v})
	}
	run := writeRun(t, recs...)
	if plan != "" {
		if err := os.WriteFile(filepath.Join(run.Dir, results.PlansDir, results.ScenarioPlanName("xs", "sqlite", "lookup", "q1", ext)), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

func TestExplainRanking(t *testing.T) {
	nan := math.NaN()
	base := results.SplitRow{ObservedMs: 0.2, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.001, RestMs: 0.199, Calls: 100}
	slow := results.SplitRow{ObservedMs: 2, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.001, RestMs: 1.999, Calls: 100}
	work := map[string]float64{"calls": 100, "fullscan_steps": 0, "vm_steps": 3000, "cache_hit": 400, "cache_miss": 0}
	scanned := map[string]float64{"calls": 100, "fullscan_steps": 100000, "vm_steps": 900000, "cache_hit": 40000, "cache_miss": 0}
	pgExec := results.SplitRow{ObservedMs: 0.5, ServerExecMs: 0.05, PlanningMs: 0.02, RoundTripMs: 0.1, RestMs: 0.33, Calls: 100}
	pgSlow := results.SplitRow{ObservedMs: 2.5, ServerExecMs: 2.0, PlanningMs: 0.02, RoundTripMs: 0.1, RestMs: 0.38, Calls: 100}
	pgRead := map[string]float64{"calls": 100, "shared_blks_hit": 400, "shared_blks_read": 0}
	pgReadMore := map[string]float64{"calls": 100, "shared_blks_hit": 400, "shared_blks_read": 5000}
	cases := []struct {
		name           string
		oldP, newP     string
		ext            string
		oldS, newS     results.SplitRow
		oldF, newF     map[string]float64
		noise          string
		first          string // the first reason starts with it; "" none at all
		alsoHas, notIn string
	}{
		{"index dropped", sqlitePlanIndexed, sqlitePlanScan, "txt", base, slow, work, scanned, "",
			"plan changed (q1): SEARCH u USING COVERING INDEX cur_text_avet (a=? AND v=?) -> SCAN u", "full-scan steps 0 -> 1000", ""},
		{"a setting flips the plan", pgPlanIndex, pgPlanSeq, "json", pgExec, pgSlow, pgRead, pgRead, "",
			"plan changed (q1): Index Scan on cur_text using cur_text_avet -> Seq Scan on cur_text", "execution 0.050 -> 2.000", "planning"},
		{"cold cache", pgPlanIndex, pgPlanIndex, "json", pgExec, pgSlow, pgRead, pgReadMore, "",
			"cache per call: blocks read 0 -> 50", "execution 0.050 -> 2.000 ms per call", "plan changed"},
		{"noise only", sqlitePlanIndexed, sqlitePlanIndexed, "txt", base, slow, work, work, "the machine's noise rose",
			"noise: the machine's noise rose", "", "plan changed"},
		{"A/A", sqlitePlanIndexed, sqlitePlanIndexed, "txt", base, base, work, work, "", "", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldRun := whyRun(t, tc.oldP, tc.ext, tc.oldS, tc.oldF)
			newRun := whyRun(t, tc.newP, tc.ext, tc.newS, tc.newF)
			w := compare.Why{What: "point", Key: results.Key{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: 1, Op: "read"}}
			if err := explain(&w, &compare.Verdict{NoiseReason: tc.noise}, oldRun, newRun); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(w.Reasons, "\n")
			if tc.first == "" {
				if len(w.Reasons) != 0 {
					t.Fatalf("reasons %q, want none: %s", w.Reasons, compare.NoEvidenceMoved)
				}
				return
			}
			if len(w.Reasons) == 0 || !strings.HasPrefix(w.Reasons[0], tc.first) {
				t.Fatalf("reasons\n%s\nwant first %q", all, tc.first)
			}
			if tc.alsoHas != "" && !strings.Contains(all, tc.alsoHas) {
				t.Errorf("reasons\n%s\nlack %q", all, tc.alsoHas)
			}
			if tc.notIn != "" && strings.Contains(all, tc.notIn) {
				t.Errorf("reasons\n%s\nblame %q", all, tc.notIn)
			}
		})
	}
}

// A run that recorded no evidence (from before evidence was kept) gives
// its points no why, rather than a "no evidence moved" it cannot know.
func TestExplainWithoutEvidence(t *testing.T) {
	nan := math.NaN()
	with := whyRun(t, sqlitePlanIndexed, "txt", results.SplitRow{ObservedMs: 0.2, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.001, RestMs: 0.199, Calls: 100},
		map[string]float64{"calls": 100, "vm_steps": 4400})
	without := writeRun(t)
	w := compare.Why{What: "point", Key: results.Key{Scenario: "lookup", Backend: "sqlite", Scale: "xs", Clients: 1, Op: "read"}}
	for _, runs := range [][2]*results.Run{{without, with}, {with, without}} {
		if err := explain(&w, &compare.Verdict{}, runs[0], runs[1]); !errors.Is(err, compare.ErrNoEvidence) {
			t.Errorf("explain: %v, want %v", err, compare.ErrNoEvidence)
		}
	}
}
