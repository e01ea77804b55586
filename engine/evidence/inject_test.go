package evidence_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// Injected causes on real databases: the quickstart's point lookup (q1)
// at its xs scale with short sampling, run twice with one cause changed
// between the runs, then explained. The tests assert which cause comes
// first, never a timing.

// quickOverride shortens the quickstart's sampling for a test.
const quickOverride = `sampling {
  warmup  = 1
  min_s   = 0.05
  min_n   = 5
  max_s   = 0.3
  reps    = 1
  probe_s = 20
}
`

// runQuickstart runs examples/quickstart.hcl's point lookup with the
// override files (name -> text) and vars into a fresh results directory,
// and loads it.
func runQuickstart(t *testing.T, overrides map[string]string, vars ...config.VarArg) *results.Run {
	t.Helper()
	return runScenario(t, "point_lookup", nil, overrides, vars...)
}

// runScenario runs the quickstart's scenario as runQuickstart does; during,
// when set, runs beside the run (it is cancelled when the run ends).
func runScenario(t testing.TB, scenario string, during func(context.Context), overrides map[string]string, vars ...config.VarArg) *results.Run {
	t.Helper()
	dir := t.TempDir()
	paths := []string{filepath.Join(spectest.Root(), "examples", "quickstart.hcl")}
	if _, ok := overrides["quick_override.hcl"]; !ok {
		overrides["quick_override.hcl"] = quickOverride
	}
	for name, text := range overrides {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	vars = append(vars, config.VarArg{Name: "scenarios", Value: `["` + scenario + `"]`}, config.VarArg{Name: "scales", Value: `["xs"]`})
	if !slices.ContainsFunc(vars, func(v config.VarArg) bool { return v.Name == "data_dir" }) {
		vars = append(vars, config.VarArg{Name: "data_dir", Value: filepath.Join(dir, "data")})
	}
	p := spectest.Plan(t, paths, vars...)
	out := filepath.Join(dir, "results")
	if during != nil {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); during(ctx) }()
		defer func() { cancel(); <-done }()
	}
	logf, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	o, err := runner.Run(context.Background(), p, runner.Options{ResultsDir: out, Registry: drivers.Default, Workers: 2, Log: logf})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if o.Failed() {
		t.Fatalf("run failed: %v", o.Failures)
	}
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// explainQ1 explains the point lookup's point of backend between the runs.
func explainQ1(t *testing.T, backend string, oldRun, newRun *results.Run) []string {
	t.Helper()
	return explainPoint(t, "point_lookup", backend, oldRun, newRun)
}

// explainPoint explains scenario's point of backend between the runs.
func explainPoint(t *testing.T, scenario, backend string, oldRun, newRun *results.Run) []string {
	t.Helper()
	var key *results.Key
	for _, r := range newRun.Timings {
		// A mix's write op, where there is one: the writes are what an
		// injected cause on writes moves.
		if r.Scenario == scenario && r.Backend == backend && (key == nil || !strings.Contains(key.Op, "write")) {
			k := r.Key()
			key = &k
		}
	}
	if key == nil {
		t.Fatalf("no %s row of %s in %s", scenario, backend, newRun.Dir)
	}
	w := compare.Why{What: key.String(), Key: *key}
	if err := evidence.Explain(&w, &compare.Verdict{}, oldRun, newRun); err != nil {
		t.Fatal(err)
	}
	t.Logf("why %s:\n%s", key, strings.Join(w.Reasons, "\n"))
	return w.Reasons
}

func TestInjectedCauses(t *testing.T) {
	pgDSN := os.Getenv("MENTAT_SPEC_PG_DSN")
	cases := []struct {
		name    string
		backend string
		oldOv   map[string]string
		newOv   map[string]string
		oldVars []config.VarArg
		newVars []config.VarArg
		first   []string // the first reason holds all of these; none: no evidence moved
		needsPG bool
	}{
		{name: "sqlite index dropped", backend: "sqlite", newVars: []config.VarArg{{Name: "avet", Value: "false"}},
			first: []string{"plan changed (q1)", "cur_text_avet"}},
		{name: "sqlite A/A", backend: "sqlite"},
		{name: "duckdb index dropped", backend: "duckdb", newVars: []config.VarArg{{Name: "avet", Value: "false"}},
			first: []string{"plan changed (q1)", "Index Scan -> Type: Sequential Scan"}},
		{name: "postgres enable_indexscan off", backend: "postgres", needsPG: true,
			oldOv: map[string]string{"pg_override.hcl": "backend \"postgres\" {\n  settings = { work_mem = \"64MB\" }\n}\n"},
			newOv: map[string]string{"pg_override.hcl": "backend \"postgres\" {\n  settings = { work_mem = \"64MB\", enable_indexscan = \"off\" }\n}\n"},
			first: []string{"plan changed (q1)", "Index Scan"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := []config.VarArg{{Name: "backends", Value: `["` + tc.backend + `"]`}}
			if tc.needsPG {
				if pgDSN == "" {
					t.Skip("MENTAT_SPEC_PG_DSN is unset")
				}
				vars = append(vars, config.VarArg{Name: "pg_dsn", Value: pgDSN})
			}
			ov := func(m map[string]string) map[string]string {
				out := map[string]string{}
				for k, v := range m {
					out[k] = v
				}
				return out
			}
			var runs [2]*results.Run
			for i, side := range []struct {
				ov   map[string]string
				vars []config.VarArg
			}{{tc.oldOv, tc.oldVars}, {tc.newOv, tc.newVars}} {
				o := ov(side.ov)
				if tc.needsPG {
					// A database of the test's own on the shared server,
					// created by the run and dropped after it.
					db := fmt.Sprintf("mentat_why_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, i)
					o["pg_override.hcl"] = strings.Replace(o["pg_override.hcl"], "backend \"postgres\" {\n", "backend \"postgres\" {\n  database = \""+db+"\"\n", 1)
					t.Cleanup(func() { dropPG(t, pgDSN, db) })
				}
				runs[i] = runQuickstart(t, o, append(vars, side.vars...)...)
			}
			oldRun, newRun := runs[0], runs[1]
			reasons := explainQ1(t, tc.backend, oldRun, newRun)
			// Through compare: every verdict that moved (on a busy machine
			// which ones do is not asserted) carries the same first reason.
			rep, err := compare.Runs(oldRun, newRun, compare.Options{Method: compare.MethodThreshold, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("compare:\n%s", rep.String())
			for _, w := range rep.Why {
				if len(tc.first) > 0 && (len(w.Reasons) == 0 || !strings.Contains(w.Reasons[0], tc.first[0])) {
					t.Errorf("compare's why of %s: %q, want first %q", w.What, w.Reasons, tc.first[0])
				}
				if !strings.Contains(rep.Markdown(), "**"+w.What+"**") {
					t.Errorf("compare -markdown lacks the why of %s", w.What)
				}
			}
			if len(tc.first) == 0 {
				// The same run twice: no plan, no counter moved. Timings
				// may, on a busy machine: only the deterministic evidence
				// is asserted.
				for _, r := range reasons {
					if strings.HasPrefix(r, "plan changed") || strings.HasPrefix(r, "work per call") || strings.HasPrefix(r, "per call") {
						t.Errorf("A/A blames %q", r)
					}
				}
				return
			}
			if len(reasons) == 0 {
				t.Fatalf("no evidence moved; want first %q", tc.first)
			}
			for _, want := range tc.first {
				if !strings.Contains(reasons[0], want) {
					t.Errorf("first reason %q lacks %q", reasons[0], want)
				}
			}
		})
	}
}

// dropPG drops the database the test's run created.
func dropPG(t testing.TB, dsn, database string) {
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
