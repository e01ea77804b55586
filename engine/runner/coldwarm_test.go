package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// coldWarmScenario puts a cold_warm scenario with warm_calls = 7 before
// the quickstart's point_lookup.
func coldWarmScenario(backendEdits ...string) []string {
	return append(backendEdits, `scenario "point_lookup" {`, `scenario "cold_vs_warm" {
  kind       = "cold_warm"
  warm_calls = 7
  read {
    mix = [query.q1, query.pull]
  }
}

scenario "point_lookup" {`)
}

// coldRows returns the cold_vs_warm rows of a CSV file by op (timings.csv
// or raw.csv), and their count and errors columns.
func coldRows(t *testing.T, path string) map[string][]string {
	t.Helper()
	rows := readCSV(t, path)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	out := map[string][]string{}
	for _, r := range rows[1:] {
		if r[col["scenario"]] == "cold_vs_warm" {
			out[r[col["op"]]] = []string{r[col["count"]], r[col["errors"]]}
		}
	}
	return out
}

// coldLine returns checks.txt's cold start line.
func coldLine(t *testing.T, dir string) string {
	t.Helper()
	var found []string
	for _, l := range readLines(t, filepath.Join(dir, "checks.txt")) {
		if strings.Contains(l, " cold start: ") {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one cold start line in checks.txt, got %q", found)
	}
	return found[0]
}

func TestColdVsWarmIsColdAndMakesExactlyWarmCalls(t *testing.T) {
	for _, backend := range []string{"sqlite", "duckdb"} {
		t.Run(backend, func(t *testing.T) {
			spec, data := tinyQuickstart(t, coldWarmScenario()...)
			o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
				config.VarArg{Name: "backends", Value: `["` + backend + `"]`})
			if o.Failed() {
				t.Fatalf("run failed: %v %+v", o.Failures, o.Checks)
			}
			// Cold: the store's files left the page cache, and that was checked.
			l := coldLine(t, dir)
			for _, want := range []string{"PASS cold_vs_warm " + backend + " xs cold start: store closed and reopened; page cache of ",
				"file(s) evicted (posix_fadvise DONTNEED); ", "pages left in the page cache", "(before each query's cold call: q1, pull)"} {
				if !strings.Contains(l, want) {
					t.Errorf("cold start line lacks %q: %s", want, l)
				}
			}
			for _, file := range []string{"timings.csv", "raw.csv"} {
				rows := coldRows(t, filepath.Join(dir, file))
				for _, op := range []string{"open", "cold_q1", "cold_pull"} {
					if r, ok := rows[op]; !ok || r[0] != "1" || r[1] != "0" {
						t.Errorf("%s: %s row %v, want one call without error", file, op, r)
					}
				}
				for _, op := range []string{"warm_q1", "warm_pull"} {
					r, ok := rows[op]
					if !ok {
						t.Errorf("%s: no %s row", file, op)
						continue
					}
					n, _ := strconv.Atoi(r[0])
					e, _ := strconv.Atoi(r[1])
					if n != 7 || e != 0 {
						t.Errorf("%s: %s measured %d calls and %d errors, want exactly warm_calls = 7", file, op, n, e)
					}
				}
			}
			summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
			if !strings.Contains(string(summary), "## Cold starts") || !strings.Contains(string(summary), "| "+backend+" | xs | cold_vs_warm | yes | store closed and reopened; page cache of ") {
				t.Errorf("summary.md does not state the cold start:\n%s", summary)
			}
			// The scenarios after the restart still run on the reopened store;
			// cold_vs_warm runs the checks declared for its queries (q1, pull).
			if o.Checks.Pass != len(quickstartScenarios)+1+2 {
				t.Errorf("checks after the restart: %+v", o.Checks)
			}
		})
	}
}

// A drop_caches command that drops nothing is caught: the store's pages
// are still cached, so the cold calls are not measured as cold.
func TestColdVsWarmCatchesACacheThatStayedWarm(t *testing.T) {
	spec, data := tinyQuickstart(t, coldWarmScenario(`driver = "sqlite"`, `driver = "sqlite"
  restart     = ["sh", "-c", "echo restart-hook-ran"]
  drop_caches = ["sh", "-c", "echo drop-caches-hook-ran"]`)...)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if o.Failed() {
		t.Fatalf("run failed: %v %+v", o.Failures, o.Checks)
	}
	hooks, err := os.ReadFile(filepath.Join(dir, "logs", "hooks.log"))
	if err != nil || !strings.Contains(string(hooks), "restart-hook-ran") || !strings.Contains(string(hooks), "drop-caches-hook-ran") {
		t.Errorf("logs/hooks.log lacks the hooks' output: %v %q", err, hooks)
	}
	// One restart before each query's cold call (q1, pull): a query must
	// not find the pages the one before read back.
	if n := strings.Count(string(hooks), "\nrestart-hook-ran\n"); n != 2 {
		t.Errorf("the restart hook ran %d times, want once per query (2)", n)
	}
	l := coldLine(t, dir)
	if !strings.HasPrefix(l, "SKIP cold_vs_warm sqlite xs cold start: cold calls not measured: ") || !strings.Contains(l, "were still in the page cache after") {
		t.Errorf("want a SKIP saying the pages stayed cached: %s", l)
	}
	rows := coldRows(t, filepath.Join(dir, "timings.csv"))
	for op := range rows {
		if strings.HasPrefix(op, "cold_") {
			t.Errorf("a warm cache was measured as cold: %s row %v", op, rows[op])
		}
	}
	if r := rows["warm_q1"]; len(r) == 0 || r[0] != "7" {
		t.Errorf("warm_q1 row %v: the warm calls still run", r)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "| sqlite | xs | cold_vs_warm | no: cold calls not measured |") {
		t.Errorf("summary.md does not say the calls were not cold:\n%s", summary)
	}
}

// A declared restart command that fails fails the run, and nothing is
// measured as cold.
func TestColdVsWarmFailingRestartCommand(t *testing.T) {
	spec, data := tinyQuickstart(t, coldWarmScenario(`driver = "sqlite"`, `driver = "sqlite"
  restart = ["sh", "-c", "echo cannot restart >&2; exit 3"]`)...)
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data})
	if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "cannot restart") {
		t.Fatalf("want the run failed with the command's output: %v", o.Failures)
	}
	if l := coldLine(t, dir); !strings.HasPrefix(l, "SKIP ") || !strings.Contains(l, "the restart command failed") {
		t.Errorf("want a SKIP naming the failed command: %s", l)
	}
}

// privateCluster starts a PostgreSQL cluster of the test's own with
// scripts/pg.sh, so restarting it disturbs no other test, and returns its
// DSN. It runs as the postgres user when the test runs as root.
func privateCluster(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	// The server's user must be able to enter the directory.
	for d := base; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pgsh := filepath.Join(repoRoot(t), "scripts", "pg.sh")
	run := func(arg string) string {
		t.Helper()
		cmd := exec.Command(pgsh, arg)
		cmd.Env = append(os.Environ(), "MENTAT_SPEC_PG_DIR="+base, "MENTAT_SPEC_PG_SHARED_BUFFERS=128MB")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("scripts/pg.sh %s: %v\n%s", arg, err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	run("up")
	t.Cleanup(func() { run("down") })
	return run("dsn")
}

// PostgreSQL: the server the DSN points at is restarted through its own
// data directory (pg_ctl of its version, as its owner), not through a
// command of the spec, and its start time changes.
func TestColdVsWarmRestartsTheDSNsServer(t *testing.T) {
	pgDSN(t) // PostgreSQL tests run when the variable is set
	dsn := privateCluster(t)
	db := "mentat_cw"
	spec, data := tinyQuickstart(t, coldWarmScenario(`database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)...)
	started := func() time.Time {
		t.Helper()
		// The server's own database: the run's is created by the run.
		rows := drivertest.QueryStore(t, "postgres", drivers.Config{Backend: "postgres", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": "postgres"}},
			"SELECT extract(epoch FROM pg_postmaster_start_time())::float8")
		return time.Unix(0, int64(rows[0][0].(float64)*1e9))
	}
	before := started()
	o, dir := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
		config.VarArg{Name: "backends", Value: `["postgres"]`}, config.VarArg{Name: "pg_dsn", Value: dsn})
	if o.Failed() {
		t.Fatalf("run failed: %v %+v", o.Failures, o.Checks)
	}
	l := coldLine(t, dir)
	t.Log(l)
	for _, want := range []string{"PASS cold_vs_warm postgres xs cold start: restarted the PostgreSQL ", "(pg_ctl restart)", "file(s) evicted"} {
		if !strings.Contains(l, want) {
			t.Errorf("cold start line lacks %q: %s", want, l)
		}
	}
	if after := started(); !after.After(before) {
		t.Errorf("the server's start time did not change (%s, then %s): it was not restarted", before, after)
	}
	rows := coldRows(t, filepath.Join(dir, "timings.csv"))
	if r := rows["cold_q1"]; len(r) == 0 || r[0] != "1" {
		t.Errorf("cold_q1 row %v", r)
	}
	if r := rows["warm_pull"]; len(r) == 0 || r[0] != "7" {
		t.Errorf("warm_pull row %v, want 7 calls", r)
	}
}
