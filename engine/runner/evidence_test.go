package runner_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// csvByName reads a results CSV into maps by column name.
func csvByName(t *testing.T, path string) []map[string]string {
	t.Helper()
	rows := readCSV(t, path)
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("%s = %q in %v: %v", col, row[col], row, err)
	}
	return v
}

// Every rep of every point gets its latency split; a backend that
// exposes no server time says so (empty, and named in rest_includes), and
// `evidence = false` writes neither file.
func TestEvidenceSplitPerRep(t *testing.T) {
	cases := []struct {
		backend string
		pg      bool
	}{{"sqlite", false}, {"duckdb", false}, {"postgres", true}}
	for _, tc := range cases {
		t.Run(tc.backend, func(t *testing.T) {
			var edits []string
			vars := []config.VarArg{{Name: "backends", Value: `["` + tc.backend + `"]`}, {Name: "scenarios", Value: `["point_lookup"]`}}
			if tc.pg {
				dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
				if dsn == "" {
					t.Skip("MENTAT_SPEC_PG_DSN is unset")
				}
				db := uniqueName(t, "mentat_ev_")
				edits = append(edits, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
				t.Cleanup(func() { dropPG(t, dsn, db) })
				vars = append(vars, config.VarArg{Name: "pg_dsn", Value: dsn})
			}
			spec, data := tinyQuickstart(t, edits...)
			vars = append(vars, config.VarArg{Name: "data_dir", Value: data})
			o, dir := apply(t, spec, runner.Options{}, vars...)
			if o.Failed() {
				t.Fatalf("run failed: %v", o.Failures)
			}
			split := csvByName(t, filepath.Join(dir, results.SplitFile))
			if len(split) != 2 {
				t.Fatalf("%d split rows, want one per rep (2): %v", len(split), split)
			}
			for i, r := range split {
				if r["rep"] != strconv.Itoa(i+1) || r["point"] != "1" || r["backend"] != tc.backend {
					t.Errorf("row %d keyed %v", i, r)
				}
				obs, floor, rest := num(t, r, "observed_ms"), num(t, r, "round_trip_floor_ms"), num(t, r, "rest_ms")
				if obs <= 0 || floor <= 0 || num(t, r, "engine_cpu_ms") <= 0 {
					t.Errorf("observed %v, floor %v, cpu %s: want all > 0", obs, floor, r["engine_cpu_ms"])
				}
				if tc.pg {
					exec := num(t, r, "server_exec_ms")
					if exec <= 0 || exec >= obs {
						t.Errorf("server_exec_ms %v, want in (0, observed %v)", exec, obs)
					}
					if r["planning_ms"] == "" && r["rest_includes"] != "planning" {
						t.Errorf("planning unknown but rest_includes = %q", r["rest_includes"])
					}
				} else if r["server_exec_ms"] != "" || r["rest_includes"] != "server_exec+planning" {
					t.Errorf("an embedded backend's server time: %q, rest_includes %q; want unknown, in the rest", r["server_exec_ms"], r["rest_includes"])
				}
				if sum := obs - floor; tc.backend != "postgres" && (rest < sum-1e-5 || rest > sum+1e-5) {
					t.Errorf("rest %v != observed - floor %v", rest, sum)
				}
			}
			if src := map[string]string{"postgres": "pg_stat_statements", "sqlite": "sqlite3_stmt_status"}[tc.backend]; src != "" {
				ev := csvByName(t, filepath.Join(dir, results.EvidenceFile))
				calls := 0.0
				for _, r := range ev {
					if r["source"] == src && r["name"] == "calls" {
						calls += num(t, r, "value")
					}
				}
				if calls <= 0 {
					t.Errorf("no %s calls in evidence.csv: %v", src, ev)
				}
			}

			// One plan per point with what an execution did, after its reps.
			if tc.backend != "sqlite" {
				ext := map[string]string{"postgres": "json", "duckdb": "txt"}[tc.backend]
				name := filepath.Join(dir, results.PlansDir, "xs-"+tc.backend+"-point_lookup-p01-q1-analyze."+ext)
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]string{"postgres": `"Actual Rows"`, "duckdb": "Total Time"}[tc.backend]
				if !strings.Contains(string(b), want) || strings.Contains(string(b), "failed") {
					t.Errorf("%s lacks %s:\n%s", name, want, b)
				}
			}

			// Switched off: neither file.
			spec2, data2 := tinyQuickstart(t, append(edits, "reps    = 2\n", "reps    = 2\n    evidence = false\n")...)
			vars[len(vars)-1] = config.VarArg{Name: "data_dir", Value: data2}
			o, dir = apply(t, spec2, runner.Options{}, vars...)
			if o.Failed() {
				t.Fatalf("run without evidence failed: %v", o.Failures)
			}
			for _, f := range []string{results.SplitFile, results.EvidenceFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written with evidence = false", f)
				}
			}
			if m, _ := filepath.Glob(filepath.Join(dir, results.PlansDir, "*-analyze.*")); len(m) > 0 {
				t.Errorf("analyzed plans written with evidence = false: %v", m)
			}
		})
	}
}

// A point's evidence starts when its clients are warm: a query whose
// first call in a session sleeps a second (the warmup's, as a cold
// session's first call is slow) leaves no trace in the split's server
// execution per call, which stays under the observed time per call.
func TestEvidenceLeavesOutTheWarmup(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset")
	}
	db := uniqueName(t, "mentat_warm_")
	t.Cleanup(func() { dropPG(t, dsn, db) })
	spec, data := tinyQuickstart(t, `database   = "mentat_quickstart_${scale.name}"`, `database   = "`+db+`"`)
	extra := filepath.Join(filepath.Dir(spec), "slow_first.hcl")
	body := `query "slow_first" {
  sql = "SELECT CASE WHEN coalesce(current_setting('mentat_test.warm', true), '') = '' THEN (SELECT 1 FROM pg_sleep(1)) ELSE 0 END, set_config('mentat_test.warm', '1', false)"
}

scenario "slow_first" {
  description = "a first call per session of a second, then fast ones"
  read {
    query = query.slow_first
  }
}
`
	if err := os.WriteFile(extra, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	o, dir := applyFiles(t, []string{spec, extra}, config.VarArg{Name: "backends", Value: `["postgres"]`},
		config.VarArg{Name: "scenarios", Value: `["slow_first"]`}, config.VarArg{Name: "pg_dsn", Value: dsn},
		config.VarArg{Name: "data_dir", Value: data})
	if o.Failed() {
		t.Fatalf("run failed: %v", o.Failures)
	}
	split := csvByName(t, filepath.Join(dir, results.SplitFile))
	if len(split) == 0 {
		t.Fatal("no split rows")
	}
	for _, r := range split {
		obs, exec := num(t, r, "observed_ms"), num(t, r, "server_exec_ms")
		if exec <= 0 || exec >= obs {
			t.Errorf("rep %s: server_exec_ms %v, want in (0, observed %v): the warmup's second counted", r["rep"], exec, obs)
		}
	}
}
