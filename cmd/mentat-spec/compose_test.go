package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// TestGUCOverride: a separate *_override.hcl file next to an unchanged
// quickstart is a complete GUC override. The run with it reads the setting
// back into env.txt, and PostgreSQL plans a query differently than in the
// same run without it.
func TestGUCOverride(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	dir := t.TempDir()
	db := fmt.Sprintf("mentat_compose_%d", os.Getpid())
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Both runs: a database of the test's own, short sampling, and the
	// scenarios whose queries scan.
	small := write("small_override.hcl", `
backend "postgres" {
  database = "`+db+`_${scale.name}"
}

sampling {
  warmup = 1
  min_s  = 0.05
  min_n  = 3
  max_s  = 0.2
}

matrix {
  scenarios = ["aggregate", "predicate_scan"]
}
`)
	seqscan := write("seqscan_override.hcl", `backend "postgres" { settings = { enable_seqscan = "off" } }`)
	t.Cleanup(func() { dropDatabase(t, dsn, db+"_xs") })

	apply := func(name string, overrides ...string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		args := append([]string{"apply", quickstart}, overrides...)
		args = append(args, "-q", "-o", out, "-data", filepath.Join(dir, "data"), "-var", `backends=["postgres"]`)
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		return out
	}
	base := apply("base", small)
	over := apply("override", small, seqscan)

	envBase, _ := os.ReadFile(filepath.Join(base, "env.txt"))
	envOver, _ := os.ReadFile(filepath.Join(over, "env.txt"))
	const line = "backend.postgres.xs.setting.enable_seqscan: off"
	if !strings.Contains(string(envOver), line) {
		t.Errorf("env.txt of the run with the override lacks %q:\n%s", line, envOver)
	}
	if strings.Contains(string(envBase), "enable_seqscan") {
		t.Errorf("env.txt of the run without the override mentions enable_seqscan")
	}
	if !strings.Contains(string(envBase), "backend.postgres.xs.setting.work_mem: 64MB") || strings.Contains(string(envOver), "backend.postgres.xs.setting.work_mem") {
		t.Errorf("the override must replace the quickstart's settings whole (work_mem only in the base run)")
	}

	changed := 0
	for q, scenario := range map[string]string{"q3": "aggregate", "q4": "predicate_scan"} {
		name := "xs-postgres-" + scenario + "-" + q + ".json"
		a, b := seqScans(t, filepath.Join(base, "plans", name)), seqScans(t, filepath.Join(over, "plans", name))
		t.Logf("%s: sequential scans %v without the override, %v with it", q, a, b)
		for rel := range a {
			if !b[rel] {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Error("no query's plan lost a sequential scan")
	}
}

// seqScans lists the relations a JSON plan reads by sequential scan.
func seqScans(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The plan file holds the SQL, the parameters and the plan.
	var file struct {
		Plan []struct{ Plan map[string]any }
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	plans := file.Plan
	out := map[string]bool{}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Node Type"] == "Seq Scan" {
			out[fmt.Sprint(n["Relation Name"])] = true
		}
		children, _ := n["Plans"].([]any)
		for _, c := range children {
			if m, ok := c.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, p := range plans {
		walk(p.Plan)
	}
	return out
}

// dropDatabase drops a database the test's runs created, through the
// driver (which drops only databases the engine created).
func dropDatabase(t *testing.T, dsn, database string) {
	t.Helper()
	drv, ok := drivers.Default.Lookup("postgres")
	if !ok {
		t.Error("cleanup: no postgres driver")
		return
	}
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
