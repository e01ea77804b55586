package runner_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// repoRoot is the repository root, found from this file.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// tinyQuickstart writes examples/quickstart.hcl into a temp dir with its
// SQL paths made absolute, a tiny xs scale and short sampling, then applies
// edits (old -> new text).
func tinyQuickstart(t testing.TB, edits ...string) (specPath, dataDir string) {
	t.Helper()
	return quickstartText(t, false, edits...)
}

// writesInclude is the quickstart's include of write_mixed, left out of
// the tiny quickstart unless a test runs writes (writemixed_test.go).
const writesInclude = "include \"writes\" {\n  path = \"../specs/mentat/writes\"\n}\n"

func quickstartText(t testing.TB, writes bool, edits ...string) (specPath, dataDir string) {
	t.Helper()
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "examples", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if !strings.Contains(src, writesInclude) {
		t.Fatal("quickstart.hcl no longer includes specs/mentat/writes")
	}
	if !writes {
		src = strings.Replace(src, writesInclude, "", 1)
	}
	text := inlineIncludes(t, root, src)
	replace := func(old, new string) {
		t.Helper()
		if !strings.Contains(text, old) {
			t.Fatalf("quickstart.hcl no longer contains %q", old)
		}
		text = strings.Replace(text, old, new, 1)
	}
	replace(`sql = "../specs/mentat"`, `sql = "`+filepath.ToSlash(filepath.Join(root, "specs", "mentat"))+`"`)
	replace("users  = 200\n", "users  = 150\n")
	replace("issues = 13000\n", "issues = 1500\n")
	replace("labels = 50\n", "labels = 10\n")
	replace("warmup  = 3\n", "warmup  = 1\n")
	replace("min_s   = 1\n", "min_s   = 0.05\n")
	replace("min_n   = 30\n", "min_n   = 5\n")
	replace("max_s   = 2\n", "max_s   = 0.3\n")
	replace("reps    = var.reps\n", "reps    = 2\n")
	for i := 0; i+1 < len(edits); i += 2 {
		replace(edits[i], edits[i+1])
	}
	dir := t.TempDir()
	specPath = filepath.Join(dir, "quickstart.hcl")
	if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, filepath.Join(dir, "data")
}

// apply loads, validates, plans and runs a spec into a fresh results dir.
func apply(t testing.TB, specPath string, opts runner.Options, vars ...config.VarArg) (*runner.Outcome, string) {
	t.Helper()
	return applyPaths(t, []string{specPath}, opts, vars...)
}

// applyFiles runs several spec files (a spec and its override files) as
// one spec into a fresh results directory.
func applyFiles(t testing.TB, paths []string, vars ...config.VarArg) (*runner.Outcome, string) {
	t.Helper()
	return applyPaths(t, paths, runner.Options{}, vars...)
}

func applyPaths(t testing.TB, paths []string, opts runner.Options, vars ...config.VarArg) (*runner.Outcome, string) {
	t.Helper()
	spec, diags := config.Load(paths, config.Options{Vars: vars})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	if opts.ResultsDir == "" {
		opts.ResultsDir = filepath.Join(t.TempDir(), "results")
	}
	opts.Registry = drivers.Default
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	o, err := runner.Run(context.Background(), p, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return o, opts.ResultsDir
}

func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

var quickstartScenarios = []string{"point_lookup", "ref_traversal", "aggregate", "predicate_scan", "pull", "as_of", "since", "input_bindings"}

const timingsHeader = "scenario,backend,scale,n_datoms,clients,op,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors,reps"

// assertQuickstartResults checks every result file of a passing run.
func assertQuickstartResults(t *testing.T, dir, backend string, o *runner.Outcome) {
	t.Helper()
	if o.Failed() {
		t.Fatalf("run failed: %v, checks %+v", o.Failures, o.Checks)
	}
	timings := readCSV(t, filepath.Join(dir, "timings.csv"))
	if got := strings.Join(timings[0], ","); got != timingsHeader {
		t.Fatalf("timings.csv header = %q", got)
	}
	seen := map[string]int{}
	for _, r := range timings[1:] {
		if r[1] != backend || r[2] != "xs" || r[4] != "1" || r[5] != "read" || r[13] != "2" {
			t.Errorf("timings row %v: want backend %s, scale xs, 1 client, op read, 2 reps", r, backend)
		}
		if r[6] == "0" || r[12] != "0" {
			t.Errorf("timings row %v: want a positive count and no errors", r)
		}
		seen[r[0]]++
	}
	for _, s := range quickstartScenarios {
		if seen[s] != 1 {
			t.Errorf("timings.csv has %d rows for %s, want 1", seen[s], s)
		}
	}
	raw := readCSV(t, filepath.Join(dir, "raw.csv"))
	if len(raw) != 1+2*len(quickstartScenarios) {
		t.Errorf("raw.csv has %d rows, want a header and 2 reps of %d scenarios", len(raw), len(quickstartScenarios))
	}
	loads := readCSV(t, filepath.Join(dir, "loads.csv"))
	if len(loads) != 2 || loads[1][0] != backend || loads[1][10] != "0" {
		t.Errorf("loads.csv = %v, want one row for %s without ceiling", loads, backend)
	}
	checks := readLines(t, filepath.Join(dir, "checks.txt"))
	pass := 0
	for _, l := range checks {
		if strings.HasPrefix(l, "PASS ") {
			pass++
		} else if !strings.HasPrefix(l, "TOTAL ") {
			t.Errorf("checks.txt: %s", l)
		}
	}
	if pass != len(quickstartScenarios) || o.Checks.Pass != pass {
		t.Errorf("checks.txt has %d PASS lines (outcome %d), want %d", pass, o.Checks.Pass, len(quickstartScenarios))
	}
	env, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"go: ", "spec_sha256: ", "var.scales: ", "cpus: ", "backend." + backend + ".xs.version: "} {
		if !strings.Contains(string(env), key) {
			t.Errorf("env.txt lacks %q", key)
		}
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append([]string{"bulk_load"}, quickstartScenarios...) {
		if !strings.Contains(string(summary), s) {
			t.Errorf("summary.md lacks %s", s)
		}
	}
	plans, _ := filepath.Glob(filepath.Join(dir, "plans", "xs-"+backend+"-*"))
	analyzed, _ := filepath.Glob(filepath.Join(dir, "plans", "xs-"+backend+"-*-analyze.*"))
	if len(plans)-len(analyzed) != 8 {
		t.Errorf("plans/ holds %d plans for %s, want 8", len(plans)-len(analyzed), backend)
	}
	if _, err := os.Stat(filepath.Join(dir, "truth-xs.json")); err != nil {
		t.Errorf("truth-xs.json: %v", err)
	}
	assertMemoryPhases(t, dir, backend)
}

// assertMemoryPhases checks memory.csv: every phase of the run has a
// row, with a resident peak the process could have had.
func assertMemoryPhases(t *testing.T, dir, backend string) {
	t.Helper()
	rows, err := results.ReadMemory(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]results.MemoryRow{}
	for _, r := range rows {
		got[r.Scale+"/"+r.Backend+"/"+r.Phase] = r
	}
	for _, k := range []string{"xs/all/truth", "xs/" + backend + "/load", "xs/" + backend + "/measure", "xs/" + backend + "/checks", "xs/all/crosscheck", "all/all/reports"} {
		r, ok := got[k]
		if !ok {
			t.Errorf("memory.csv has no row %s: %+v", k, rows)
			continue
		}
		if r.PeakRSS < 1<<20 || r.PeakRSS > 64<<30 || r.PeakGo <= 0 || r.PeakOf != results.PeakOfPhase {
			t.Errorf("memory.csv row %s: %+v, want a resident peak between 1 MiB and 64 GiB, reset at the phase's start", k, r)
		}
	}
}

func TestApplyQuickstartSQLite(t *testing.T) {
	spec, data := tinyQuickstart(t)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	assertQuickstartResults(t, dir, "sqlite", o)

	// A second run reuses the loaded store: no load row, same answers.
	o2, dir2 := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if o2.Failed() || o2.Checks.Pass != len(quickstartScenarios) {
		t.Fatalf("second run: %v %+v", o2.Failures, o2.Checks)
	}
	if _, err := os.Stat(filepath.Join(dir2, "loads.csv")); err == nil {
		t.Errorf("second run loaded again: %v", readCSV(t, filepath.Join(dir2, "loads.csv")))
	}
}

func TestApplyQuickstartDuckDB(t *testing.T) {
	spec, data := tinyQuickstart(t)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["duckdb"]`})
	assertQuickstartResults(t, dir, "duckdb", o)
	// The driver names its cache; the summary calls it so.
	env, err := os.ReadFile(filepath.Join(dir, results.EnvFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), "backend.duckdb.xs."+results.CacheSettingKey+": memory_limit\n") {
		t.Errorf("env.txt lacks duckdb's cache setting:\n%s", env)
	}
	if summary, _ := os.ReadFile(filepath.Join(dir, results.SummaryFile)); !strings.Contains(string(summary), "of memory_limit") {
		t.Errorf("summary.md does not name duckdb's cache memory_limit:\n%s", summary)
	}
}

func TestWrongAnswerFailsTheRun(t *testing.T) {
	// q1 answers with a constant name: fast, and wrong.
	spec, data := tinyQuickstart(t, `default = file("${local.sql}/sql/q1.sql")`,
		`default = "SELECT u.e AS e, 'nobody' AS name FROM cur_text u WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email"`)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if !o.Failed() || o.Checks.Fail != 1 {
		t.Fatalf("a wrong answer must fail the run: failed=%v checks=%+v", o.Failed(), o.Checks)
	}
	var failLine string
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		if strings.HasPrefix(l, "FAIL ") {
			failLine = l
		}
	}
	if !strings.Contains(failLine, "point_lookup sqlite xs names") || !strings.Contains(failLine, `"nobody"`) {
		t.Errorf("FAIL line = %q", failLine)
	}
	// Everything else is still measured and written.
	if rows := readCSV(t, filepath.Join(dir, "timings.csv")); len(rows) != 1+len(quickstartScenarios) {
		t.Errorf("timings.csv has %d rows", len(rows))
	}
}

func TestCeilingSkipsTheScenarioAndKeepsTheStoreUsable(t *testing.T) {
	// One deliberately slow query per dialect, cut at a 0.2 s probe.
	slow := `
query "slow" {
  sql = {
    default  = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) AS n FROM c"
    postgres = "SELECT pg_sleep(30) IS NULL AS n"
    duckdb   = "SELECT count(*) AS n FROM range(1000000000) a, range(1000) b"
  }
}

scenario "slow" {
  sampling {
    probe_s = 0.2
  }
  read {
    query = query.slow
  }
}

scenario "point_lookup" {`
	for _, backend := range []string{"sqlite", "duckdb", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			vars := []config.VarArg{{Name: "backends", Value: `["` + backend + `"]`}}
			edits := []string{`scenario "point_lookup" {`, slow}
			if backend == "postgres" {
				dsn := pgDSN(t)
				db := uniqueName(t, "mentat_rt_")
				t.Cleanup(func() { dropPG(t, dsn, db) })
				edits = append(edits, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
				vars = append(vars, config.VarArg{Name: "pg_dsn", Value: dsn})
			}
			spec, data := tinyQuickstart(t, edits...)
			vars = append(vars, config.VarArg{Name: "data_dir", Value: data})
			start := time.Now()
			o, dir := apply(t, spec, runner.Options{}, vars...)
			if o.Failed() {
				t.Fatalf("run failed: %v %+v", o.Failures, o.Checks)
			}
			var ceiling, after []string
			for _, r := range readCSV(t, filepath.Join(dir, "timings.csv"))[1:] {
				switch r[0] {
				case "slow":
					ceiling = r
				case "point_lookup":
					after = r
				}
			}
			if ceiling == nil || ceiling[5] != "ceiling" || ceiling[6] != "1" {
				t.Fatalf("slow scenario row = %v, want a ceiling row", ceiling)
			}
			if after == nil || after[5] != "read" || after[12] != "0" {
				t.Fatalf("the next scenario = %v, want a normal read row", after)
			}
			if d := time.Since(start); d > 25*time.Second {
				t.Errorf("the run took %s: the slow query was not cut at the ceiling", d)
			}
		})
	}
}

func TestRefusesAStoreItDidNotCreate(t *testing.T) {
	spec, data := tinyQuickstart(t)
	ctx := context.Background()
	drv, _ := drivers.Default.Lookup("sqlite")
	cfg := drivers.Config{Backend: "sqlite", Scale: "xs", Options: map[string]string{"path": filepath.Join(data, "quickstart-xs.sqlite")}}
	// A user's own database sits where the backend points.
	exec := func(sql string) {
		t.Helper()
		be, err := drv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer be.Close()
		s, err := be.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	exec("CREATE TABLE my_data (x INTEGER)")
	exec("INSERT INTO my_data VALUES (42)")

	o, _ := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "not created by") {
		t.Fatalf("the run must refuse a store it did not create: %v", o.Failures)
	}
	be, err := drv.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	s, err := be.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for sql, want := range map[string]int64{
		"SELECT x FROM my_data": 1,
		"SELECT name FROM sqlite_master WHERE name IN ('log_text', 'mentat_spec_meta')": 0,
	} {
		st, err := s.Prepare(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		n, err := st.Query(ctx, nil, nil)
		st.Close()
		if err != nil || n != want {
			t.Errorf("%s: %d rows (%v), want %d: the user's store was changed", sql, n, err, want)
		}
	}
}

// pgDSN returns the PostgreSQL server of the tests; `make test` starts a
// throwaway one (scripts/with-pg.sh), so CI always runs these.
func pgDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	return dsn
}

// dropPG drops a database the test made, through the driver.
func dropPG(t *testing.T, dsn, database string) {
	t.Helper()
	drv, _ := drivers.Default.Lookup("postgres")
	ctx := context.Background()
	be, err := drv.Open(ctx, drivers.Config{Backend: "postgres", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": database}})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer be.Close()
	if err := be.(drivers.Dropper).Drop(ctx); err != nil {
		t.Errorf("cleanup: dropping %s: %v", database, err)
	}
}

func uniqueName(t *testing.T, prefix string) string {
	return fmt.Sprintf("%s%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9)
}

func TestApplyQuickstartPostgres(t *testing.T) {
	dsn := pgDSN(t)
	db := uniqueName(t, "mentat_rt_")
	spec, data := tinyQuickstart(t, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
	t.Cleanup(func() { dropPG(t, dsn, db) })
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["postgres"]`}, config.VarArg{Name: "pg_dsn", Value: dsn})
	assertQuickstartResults(t, dir, "postgres", o)
	env, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	// The GUC override of the spec, read back from the server.
	if !strings.Contains(string(env), "backend.postgres.xs.setting.work_mem: 64MB") {
		t.Errorf("env.txt lacks the work_mem override read back from pg_settings")
	}
	if strings.Contains(string(env), dsn) {
		t.Errorf("env.txt holds the DSN")
	}
	loads := readCSV(t, filepath.Join(dir, "loads.csv"))
	if loads[1][6] == "" || loads[1][7] == "" {
		t.Errorf("loads.csv lacks ANALYZE and VACUUM times: %v", loads[1])
	}
}

func TestRefusesAPostgresDatabaseItDidNotCreate(t *testing.T) {
	dsn := pgDSN(t)
	db := uniqueName(t, "mentat_user_")
	ctx := context.Background()
	drv, _ := drivers.Default.Lookup("postgres")
	cfg := drivers.Config{Backend: "postgres", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": db}}
	session := func() (drivers.Backend, drivers.Session) {
		t.Helper()
		be, err := drv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := be.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return be, s
	}
	// A database the user made and filled, not this tool.
	be, s := session()
	if err := s.Exec(ctx, "CREATE TABLE my_data (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "INSERT INTO my_data VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	be.Close()
	t.Cleanup(func() { dropPG(t, dsn, db) })

	spec, data := tinyQuickstart(t, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
	o, _ := apply(t, spec, runner.Options{Reload: true}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["postgres"]`}, config.VarArg{Name: "pg_dsn", Value: dsn})
	if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "not created by") {
		t.Fatalf("the run must refuse a database it did not create: %v", o.Failures)
	}
	be, s = session()
	defer be.Close()
	defer s.Close()
	st, err := s.Prepare(ctx, "SELECT x FROM my_data")
	if err != nil {
		t.Fatalf("the user's table is gone: %v", err)
	}
	defer st.Close()
	if n, err := st.Query(ctx, nil, nil); err != nil || n != 1 {
		t.Fatalf("the user's rows changed: %d %v", n, err)
	}
}
