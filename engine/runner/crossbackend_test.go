package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// crossLines returns checks.txt's cross-backend lines.
func crossLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		if strings.Contains(l, " (cross-backend): ") {
			out = append(out, l)
		}
	}
	return out
}

func TestCrossBackendAnswersAgree(t *testing.T) {
	backends := []string{"sqlite", "duckdb"}
	var vars []config.VarArg
	edits := []string{}
	if dsn := os.Getenv("MENTAT_SPEC_PG_DSN"); dsn != "" {
		db := uniqueName(t, "mentat_xb_")
		edits = append(edits, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
		t.Cleanup(func() { dropPG(t, dsn, db) })
		backends = append(backends, "postgres")
		vars = append(vars, config.VarArg{Name: "pg_dsn", Value: dsn})
	} else {
		t.Log("MENTAT_SPEC_PG_DSN is unset: comparing SQLite and DuckDB only")
	}
	spec, data := tinyQuickstart(t, edits...)
	vars = append(vars, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["` + strings.Join(backends, `","`) + `"]`})
	o, dir := apply(t, spec, runner.Options{}, vars...)
	if o.Failed() {
		t.Fatalf("run failed: %v %+v\n%s", o.Failures, o.Checks, strings.Join(crossLines(t, dir), "\n"))
	}
	lines := crossLines(t, dir)
	if len(lines) != len(quickstartScenarios) {
		t.Errorf("%d cross-backend lines, want one per check (%d):\n%s", len(lines), len(quickstartScenarios), strings.Join(lines, "\n"))
	}
	joined := strings.Join(backends, "+")
	for _, l := range lines {
		if !strings.HasPrefix(l, "PASS ") || !strings.Contains(l, " "+joined+" xs ") || !strings.Contains(l, "agree across "+strings.Join(backends, ", ")) {
			t.Errorf("want a PASS naming %s: %s", joined, l)
		}
	}
	if o.Checks.Pass != len(backends)*len(quickstartScenarios)+len(lines) {
		t.Errorf("checks %+v: want every backend's checks and the cross-backend lines to pass", o.Checks)
	}
	// The answers kept on disk for the comparison are gone.
	if left, _ := filepath.Glob(filepath.Join(dir, ".cross-backend-*")); len(left) > 0 {
		t.Errorf("answer files left behind: %v", left)
	}
	// A rerun into the same directory with one backend compares nothing
	// with the first run's answers: no new line, no false FAIL.
	o2, _ := apply(t, spec, runner.Options{ResultsDir: dir}, append(vars[:len(vars)-1:len(vars)-1],
		config.VarArg{Name: "backends", Value: `["duckdb"]`})...)
	if o2.Failed() {
		t.Fatalf("rerun failed: %v %+v", o2.Failures, o2.Checks)
	}
	if again := crossLines(t, dir); len(again) != len(lines) {
		t.Errorf("the one-backend rerun wrote cross-backend lines:\n%s", strings.Join(again[len(lines):], "\n"))
	}
}

func TestCrossBackendDifferenceFails(t *testing.T) {
	spec, data := tinyQuickstart(t)
	override, err := filepath.Abs(filepath.Join("testdata", "crossbackend", "q1_override.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	o, dir := applyFiles(t, []string{spec, override}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["sqlite","duckdb"]`})
	if !o.Failed() {
		t.Fatalf("a backend answering differently must fail the run (apply exits 1): %+v", o.Checks)
	}
	var fail []string
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		if strings.HasPrefix(l, "FAIL ") {
			fail = append(fail, l)
		}
	}
	if len(fail) != 1 {
		t.Fatalf("want exactly one FAIL, the cross-backend names check; got:\n%s", strings.Join(fail, "\n"))
	}
	f := fail[0]
	t.Log(f)
	for _, want := range []string{"FAIL point_lookup sqlite+duckdb xs names (cross-backend): duckdb differ(s) from sqlite",
		"first differing row (#1, rows sorted): sqlite (", ` (duckdb)")`} {
		if !strings.Contains(f, want) {
			t.Errorf("the FAIL line lacks %q:\n%s", want, f)
		}
	}
	// Each backend's own check, which only counts rows, passed.
	if o.Checks.Fail != 1 {
		t.Errorf("checks %+v: want the one cross-backend FAIL only", o.Checks)
	}
}
