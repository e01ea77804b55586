package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
)

// seedKnobs are the command line: the seed suite's knobs as variables.
var seedKnobs = []string{
	"-var", `scales=["xs"]`, "-var", "load_max_s=3600", "-var", "min_n=10",
	"-var", "check_s=60", "-var", "pg_load_jobs=2",
}

// quickFull applies specs/full.hcl with an override file that shortens
// sampling and names the PostgreSQL database, and variables that keep the
// sweep small and the shared test cluster running (no restart hook). It
// returns the results directory and the args apply ran with.
func quickFull(t *testing.T, backends string, extra ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	db := fmt.Sprintf("mentat_parity_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	override := filepath.Join(dir, "quick_override.hcl")
	text := fmt.Sprintf(`sampling {
  warmup = 1
  min_s  = 0.02
  max_s  = 0.2
  reps   = 1
}
backend "postgres" {
  database = %q
}
`, db)
	if err := os.WriteFile(override, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{fullSpec, override}
	args = append(args, seedKnobs...)
	args = append(args, "-var", "backends="+backends, "-var", "clients=[1,2]", "-var", "restart={}", "-var", "pg_server_restart=off",
		"-var", "data_dir="+filepath.Join(dir, "data"))
	args = append(args, extra...)
	if dsn := os.Getenv("MENTAT_SPEC_PG_DSN"); dsn != "" && strings.Contains(backends, "postgres") {
		t.Cleanup(func() { dropDatabase(t, dsn, db) })
	}
	out := filepath.Join(dir, "results")
	code, stdout, stderr := runT(t, append([]string{"apply", "-q", "-o", out}, args...)...)
	if code != exitOK {
		t.Fatalf("apply exit %d\n%s%s", code, stdout, stderr)
	}
	return out, args
}

func readEnv(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") {
			env[k] = v
		}
	}
	return env
}

// The command validates and runs, every knob shows in env.txt with
// its source, and PostgreSQL's own statistics land in logs/: one
// statements file per point with pg_stat_statements loaded, the reason in
// env.txt without it.
func TestApplyFullSpecWithSeedKnobs(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	code, _, stderr := runT(t, append([]string{"validate", fullSpec, "-var", `backends=["postgres"]`}, seedKnobs...)...)
	if code != exitOK {
		t.Fatalf("validate exit %d: %s", code, stderr)
	}
	out, args := quickFull(t, `["postgres"]`)
	env := readEnv(t, out)
	for k, want := range map[string]string{
		"var.min_n":        "10 (from -var)",
		"var.load_max_s":   "3600 (from -var)",
		"var.check_s":      "60 (from -var)",
		"var.pg_load_jobs": "2 (from -var)",
		"var.scales":       `["xs"] (from -var)`,
	} {
		if env[k] != want {
			t.Errorf("env.txt %s = %q, want %q", k, env[k], want)
		}
	}
	if s := env["sampling"]; !strings.Contains(s, "min_n=10") || !strings.Contains(s, "check_s=60") || !strings.Contains(s, "load_max_s=3600") {
		t.Errorf("env.txt sampling does not reflect the variables: %q", s)
	}
	f, err := os.Open(filepath.Join(out, "loads.csv"))
	if err != nil {
		t.Fatal(err)
	}
	loads, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 2 || loads[1][9] != "2" {
		t.Errorf("loads.csv does not show 2 load jobs: %v", loads)
	}
	loadLog, err := os.ReadFile(filepath.Join(out, "logs", "load-xs-postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job 0: table log_text: ", "job 1: table log_int: ", "job 1: commit at ", "total: table attrs: 10 rows"} {
		if !strings.Contains(string(loadLog), want) {
			t.Errorf("the load log lacks %q:\n%s", want, loadLog)
		}
	}

	points := planPoints(t, args)
	files, _ := filepath.Glob(filepath.Join(out, "logs", "statements-*.log"))
	if preloaded(t, dsn) {
		if env["backend.postgres.xs.pg_stat_statements"] != "loaded" {
			t.Errorf("env.txt pg_stat_statements = %q, want loaded", env["backend.postgres.xs.pg_stat_statements"])
		}
		var got []string
		for _, f := range files {
			got = append(got, filepath.Base(f))
			b, _ := os.ReadFile(f)
			// The columns widen with the counts (a fast machine passes
			// 99,999 calls in a point), so the header's spacing varies.
			if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), "calls total_ms") || !strings.Contains(string(b), "SELECT") {
				t.Errorf("%s holds no statement statistics:\n%s", filepath.Base(f), b)
			}
		}
		if strings.Join(got, " ") != strings.Join(points, " ") {
			t.Errorf("statements files\n%v\nwant one per point\n%v", got, points)
		}
	} else {
		if len(files) != 0 {
			t.Errorf("statements files without pg_stat_statements: %v", files)
		}
		if v := env["backend.postgres.xs.statement_stats"]; !strings.HasPrefix(v, "SKIP (pg_stat_statements is not in shared_preload_libraries") {
			t.Errorf("env.txt statement_stats = %q, want the reason for the SKIP", v)
		}
	}
	// The server log: copied when local and readable, else the reason.
	if v := env["backend.postgres.xs.server_log"]; v == "logs/server-xs-postgres.log" {
		b, err := os.ReadFile(filepath.Join(out, "logs", "server-xs-postgres.log"))
		if err != nil || !strings.HasPrefix(string(b), "# xs/postgres: the server's log lines") {
			t.Errorf("server log: %v\n%s", err, b)
		}
	} else if !strings.HasPrefix(v, "unknown (") {
		t.Errorf("env.txt server_log = %q", v)
	}
}

// planPoints names the statements file each point of the plan should have.
func planPoints(t *testing.T, args []string) []string {
	t.Helper()
	var paths []string
	var vars []config.VarArg
	for i := 0; i < len(args); i++ {
		if args[i] == "-var" {
			n, v, _ := strings.Cut(args[i+1], "=")
			vars = append(vars, config.VarArg{Name: n, Value: v})
			i++
			continue
		}
		paths = append(paths, args[i])
	}
	spec, diags := config.Load(paths, config.Options{Vars: vars})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var names []string
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			for _, sc := range c.Scenarios {
				for i := range sc.Points {
					names = append(names, fmt.Sprintf("statements-%s-%s-%s-%02d.log", sp.Name, c.Backend.Name, sc.Name, i+1))
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// preloaded asks the server, apart from the engine, whether it loaded
// pg_stat_statements.
func preloaded(t *testing.T, dsn string) bool {
	t.Helper()
	rows := drivertest.QueryStore(t, "postgres", drivers.Config{Backend: "probe", Scale: "xs", Options: map[string]string{"dsn": dsn, "database": "postgres"}},
		"SELECT current_setting('shared_preload_libraries')")
	return strings.Contains(fmt.Sprint(rows[0][0]), "pg_stat_statements")
}

// envKeyRows reads README.md's env.txt table: each key pattern and when
// it is written.
func envKeyRows(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start, end := strings.Index(text, "<!-- env-keys:start -->"), strings.Index(text, "<!-- env-keys:end -->")
	if start < 0 || end < start {
		t.Fatal("README.md has no env-keys table")
	}
	rows := map[string]string{}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| .* \\| ([a-z ]+) \\|$")
	for _, line := range strings.Split(text[start:end], "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows[m[1]] = m[2]
		}
	}
	if len(rows) < 20 {
		t.Fatalf("README.md's env-keys table has %d rows", len(rows))
	}
	return rows
}

// keyPattern turns "backend.<backend>.<scale>.setting.<name>" into a
// regular expression.
func keyPattern(key string) *regexp.Regexp {
	parts := regexp.MustCompile(`<[a-z]+>`).Split(key, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, `[^ ]+?`) + "$")
}

// env.txt's keys and README.md's table agree both ways: every key a run
// writes is documented, and every documented key a run of these backends
// must write is there.
func TestEnvKeysMatchREADME(t *testing.T) {
	backends := []string{"sqlite", "duckdb"}
	if os.Getenv("MENTAT_SPEC_PG_DSN") != "" {
		backends = append(backends, "postgres")
	}
	out, _ := quickFull(t, `["`+strings.Join(backends, `","`)+`"]`)
	env := readEnv(t, out)
	rows := envKeyRows(t)
	pats := map[string]*regexp.Regexp{}
	for k := range rows {
		pats[k] = keyPattern(k)
	}
	seen := map[string]bool{}
	for key := range env {
		matched := false
		for k, re := range pats {
			if re.MatchString(key) {
				matched, seen[k] = true, true
			}
		}
		if !matched {
			t.Errorf("env.txt key %q is not in README.md's env.txt table", key)
		}
	}
	ran := map[string]bool{"always": true, "apply": true}
	for _, b := range backends {
		ran[b] = true
	}
	for k, when := range rows {
		if ran[when] && !seen[k] {
			t.Errorf("README.md lists %q (written %s), but the run wrote no such key", k, when)
		}
	}
	// Every fact is there: a machine fact with its source, or unknown with
	// the reason.
	for _, k := range []string{"kernel", "hugepages", "numa_nodes", "sockets", "data_fs", "data_fs_options", "cpu_governor", "transparent_hugepage_enabled", "instance_type"} {
		if v := env[k]; !strings.HasSuffix(v, ")") || !(strings.Contains(v, " (from ") || strings.HasPrefix(v, "unknown (")) {
			t.Errorf("env.txt %s = %q: want a value with its source or unknown (reason)", k, v)
		}
	}
	if !strings.Contains(env["backend.sqlite.xs.compile_options"], "THREADSAFE=") {
		t.Errorf("env.txt lacks SQLite's compile options: %q", env["backend.sqlite.xs.compile_options"])
	}
	if env["backend.duckdb.xs.duckdb_setting.threads"] == "" {
		t.Errorf("env.txt lacks DuckDB's settings in force")
	}
}
