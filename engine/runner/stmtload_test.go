package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

func stmtloadFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "stmtload", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkLines returns checks.txt's lines starting with status.
func checkLines(t *testing.T, dir, status string) []string {
	t.Helper()
	var out []string
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		if strings.HasPrefix(l, status+" ") {
			out = append(out, l)
		}
	}
	return out
}

// TestStatementLoadQuickstart loads the quickstart's dataset through a
// statement on each database (JSON tx-data into the engine's own tables)
// and every quickstart check passes on the store so loaded.
func TestStatementLoadQuickstart(t *testing.T) {
	backends := []string{"sqlite", "duckdb"}
	var vars []config.VarArg
	var edits []string
	if dsn := os.Getenv("MENTAT_SPEC_PG_DSN"); dsn != "" {
		db := uniqueName(t, "mentat_stl_")
		edits = append(edits, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
		t.Cleanup(func() { dropPG(t, dsn, db) })
		backends = append(backends, "postgres")
		vars = append(vars, config.VarArg{Name: "pg_dsn", Value: dsn})
	} else {
		t.Log("MENTAT_SPEC_PG_DSN is unset: SQLite and DuckDB only")
	}
	for _, be := range backends {
		t.Run(be, func(t *testing.T) {
			spec, data := tinyQuickstart(t, edits...)
			vv := append(vars[:len(vars):len(vars)], config.VarArg{Name: "data_dir", Value: data},
				config.VarArg{Name: "backends", Value: `["` + be + `"]`})
			o, dir := applyPaths(t, []string{spec, stmtloadFile(t, "load_override.hcl")}, runner.Options{}, vv...)
			if o.Failed() {
				t.Fatalf("run failed: %v %+v\n%s", o.Failures, o.Checks, strings.Join(checkLines(t, dir, "FAIL"), "\n"))
			}
			if o.Checks.Pass < len(quickstartScenarios) || o.Checks.Fail != 0 {
				t.Errorf("checks %+v: want every quickstart check to pass", o.Checks)
			}
			log, err := os.ReadFile(filepath.Join(dir, "logs", "load-xs-"+be+".log"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"load through a statement", "schema: 10 attributes in one call", "batches: "} {
				if !strings.Contains(string(log), want) {
					t.Errorf("load log lacks %q:\n%s", want, log)
				}
			}
			loads := readCSV(t, filepath.Join(dir, "loads.csv"))
			if len(loads) != 2 {
				t.Fatalf("loads.csv: %v", loads)
			}
			rate, _ := strconv.ParseFloat(loads[1][4], 64)
			if loads[1][0] != be || rate <= 0 || loads[1][len(loads[1])-1] != "0" {
				t.Errorf("loads.csv row %v: want %s, a positive rate, no ceiling", loads[1], be)
			}
		})
	}
}

// TestStatementLoadDroppingADatomFails: a load statement that loses one
// datom of a batch leaves a store a check tells from the truth.
func TestStatementLoadDroppingADatomFails(t *testing.T) {
	spec, data := tinyQuickstart(t)
	o, dir := applyPaths(t, []string{spec, stmtloadFile(t, "drop_override.hcl")}, runner.Options{},
		config.VarArg{Name: "data_dir", Value: data}, config.VarArg{Name: "backends", Value: `["sqlite"]`})
	if !o.Failed() {
		t.Fatalf("a store missing a datom passed every check: %+v", o.Checks)
	}
	fails := checkLines(t, dir, "FAIL")
	t.Log(strings.Join(fails, "\n"))
	found := false
	for _, l := range fails {
		found = found || strings.HasPrefix(l, "FAIL aggregate sqlite xs per_state")
	}
	if !found {
		t.Errorf("want the aggregate check to FAIL; FAIL lines:\n%s", strings.Join(fails, "\n"))
	}
}

// TestOneValueAnswers: queries answering one JSON value (SQLite's and
// DuckDB's json_group_array, PostgreSQL's json_agg) and one EDN value
// (built in SQL) pass the quickstart's checks on the decoded rows.
func TestOneValueAnswers(t *testing.T) {
	backends := []string{"sqlite", "duckdb"}
	var vars []config.VarArg
	var edits []string
	if dsn := os.Getenv("MENTAT_SPEC_PG_DSN"); dsn != "" {
		db := uniqueName(t, "mentat_ans_")
		edits = append(edits, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
		t.Cleanup(func() { dropPG(t, dsn, db) })
		backends = append(backends, "postgres")
		vars = append(vars, config.VarArg{Name: "pg_dsn", Value: dsn})
	}
	spec, data := tinyQuickstart(t, edits...)
	vars = append(vars, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["` + strings.Join(backends, `","`) + `"]`},
		config.VarArg{Name: "scenarios", Value: `["point_lookup","ref_traversal","aggregate"]`})
	o, dir := applyPaths(t, []string{spec, stmtloadFile(t, "answers_override.hcl")}, runner.Options{}, vars...)
	if o.Failed() {
		t.Fatalf("run failed: %v %+v\n%s", o.Failures, o.Checks, strings.Join(checkLines(t, dir, "FAIL"), "\n"))
	}
	pass := strings.Join(checkLines(t, dir, "PASS"), "\n")
	for _, be := range backends {
		for _, want := range []string{"point_lookup " + be + " xs names", "ref_traversal " + be + " xs assigned", "aggregate " + be + " xs per_state"} {
			if !strings.Contains(pass, "PASS "+want) {
				t.Errorf("no PASS %s in:\n%s", want, pass)
			}
		}
	}
	if len(backends) > 1 && !strings.Contains(pass, "(cross-backend)") {
		t.Errorf("the decoded answers were not compared across backends:\n%s", pass)
	}
}

// TestCorruptAnswerFails: an answer that does not decode is a FAIL naming
// the query and the answer's first bytes, not a crash.
func TestCorruptAnswerFails(t *testing.T) {
	spec, data := tinyQuickstart(t)
	o, dir := applyPaths(t, []string{spec, stmtloadFile(t, "corrupt_override.hcl")}, runner.Options{},
		config.VarArg{Name: "data_dir", Value: data}, config.VarArg{Name: "backends", Value: `["sqlite"]`},
		config.VarArg{Name: "scenarios", Value: `["aggregate","ref_traversal"]`})
	if !o.Failed() {
		t.Fatalf("a corrupt answer passed: %+v", o.Checks)
	}
	fails := checkLines(t, dir, "FAIL")
	t.Log(strings.Join(fails, "\n"))
	if len(fails) != 2 {
		t.Fatalf("want two FAILs, got:\n%s", strings.Join(fails, "\n"))
	}
	all := strings.Join(fails, "\n")
	for _, want := range []string{
		`FAIL aggregate sqlite xs per_state: 1 of 1 cases wrong; first: query q3: its json answer does not decode: not JSON: unexpected EOF; the answer starts "[{\"state\":`,
		// A case of a for_each check is named before the query.
		`first: [user`, `] query q2: its edn answer does not decode: edn: at byte `, `missing '}'; the answer starts "#{[`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the FAIL lines lack %q:\n%s", want, all)
		}
	}
}
