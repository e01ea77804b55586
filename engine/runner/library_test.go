package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// libraryCopy writes examples/library/library.hcl into a temp dir with its
// SQL paths made absolute and short sampling, and returns the spec path,
// a data dir and the names of the spec's scenarios.
func libraryCopy(t *testing.T) (specPath, dataDir string, scenarios []string) {
	t.Helper()
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "examples", "library", "library.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	replace := func(old, new string) {
		t.Helper()
		if !strings.Contains(text, old) {
			t.Fatalf("library.hcl no longer contains %q", old)
		}
		text = strings.Replace(text, old, new, 1)
	}
	abs := func(parts ...string) string {
		return filepath.ToSlash(filepath.Join(append([]string{root}, parts...)...))
	}
	replace(`mentat = "../../specs/mentat"`, `mentat = "`+abs("specs", "mentat")+`"`)
	replace(`sql = "sql"`, `sql = "`+abs("examples", "library", "sql")+`"`)
	replace("warmup  = 2\n", "warmup  = 1\n")
	replace("min_s   = 0.3\n", "min_s   = 0.05\n")
	replace("min_n   = 20\n", "min_n   = 5\n")
	replace("max_s   = 1\n", "max_s   = 0.2\n")
	dir := t.TempDir()
	specPath = filepath.Join(dir, "library.hcl")
	if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{specPath}, config.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	for _, sc := range spec.Scenarios {
		scenarios = append(scenarios, sc.Name)
	}
	if len(scenarios) < 5 {
		t.Fatalf("the library example has %d scenarios, want at least 5", len(scenarios))
	}
	return specPath, filepath.Join(dir, "data"), scenarios
}

// TestApplyLibrarySQLite runs the library example end to end at xs: every
// scenario measured once and every check passing against truth.
func TestApplyLibrarySQLite(t *testing.T) {
	spec, data, scenarios := libraryCopy(t)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if o.Failed() {
		t.Fatalf("run failed: %v, checks %+v", o.Failures, o.Checks)
	}

	timings := readCSV(t, filepath.Join(dir, "timings.csv"))
	if got := strings.Join(timings[0], ","); got != timingsHeader {
		t.Fatalf("timings.csv header = %q", got)
	}
	rows := map[string]int{}
	for _, r := range timings[1:] {
		if r[1] != "sqlite" || r[2] != "xs" || r[4] != "1" || r[5] != "read" {
			t.Errorf("timings row %v: want sqlite, xs, 1 client, a read", r)
		}
		if r[6] == "0" || r[12] != "0" {
			t.Errorf("timings row %v: want a positive count and no errors", r)
		}
		rows[r[0]]++
	}
	for _, s := range scenarios {
		if rows[s] != 1 {
			t.Errorf("timings.csv has %d rows for %s, want 1", rows[s], s)
		}
	}
	if len(timings)-1 != len(scenarios) {
		t.Errorf("timings.csv has %d rows, want %d", len(timings)-1, len(scenarios))
	}

	// One check per scenario, each named in a PASS line.
	pass := map[string]bool{}
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		switch {
		case strings.HasPrefix(l, "PASS "):
			pass[strings.Fields(l)[1]] = true
		case !strings.HasPrefix(l, "TOTAL "):
			t.Errorf("checks.txt: %s", l)
		}
	}
	for _, s := range scenarios {
		if !pass[s] {
			t.Errorf("checks.txt has no PASS line for %s", s)
		}
	}
	if o.Checks.Pass != len(scenarios) || o.Checks.Fail != 0 || o.Checks.Skip != 0 {
		t.Errorf("checks %+v, want %d PASS", o.Checks, len(scenarios))
	}
}
