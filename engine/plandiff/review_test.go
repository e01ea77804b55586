package plandiff_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
	"github.com/mentat-spec/mentat-spec/engine/plandiff"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// copyDir copies the review fixture to a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewChange makes the change the tests review: the DuckDB text of
// query "name", and the clients of scenario "total".
func reviewChange(t *testing.T, dir string) {
	edit(t, filepath.Join(dir, "sql/duckdb/name.sql"), "'user/name')\n", "'user/name')\nLIMIT 1\n")
	edit(t, filepath.Join(dir, "spec.hcl"), "clients = [1]", "clients = [1, 2]")
}

func buildPlan(t *testing.T, dir string, vars ...config.VarArg) *plan.Plan {
	t.Helper()
	spec, diags := config.Load([]string{filepath.Join(dir, "spec.hcl")}, config.Options{Vars: vars})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func TestDiffReview(t *testing.T) {
	before := copyDir(t, "testdata/review")
	after := copyDir(t, "testdata/review")
	reviewChange(t, after)
	a, b := plandesc.Describe(buildPlan(t, before)), plandesc.Describe(buildPlan(t, after))

	if r := plandiff.Between("old", "new", a, a); !r.Empty() {
		t.Fatalf("a plan differs from itself: %+v", r.Changes)
	}
	r := plandiff.Between("old", "new", a, b)
	type named struct{ op, what, name, cells string }
	var got []named
	for _, c := range r.Changes {
		got = append(got, named{c.Op, c.What, c.Name, strings.Join(c.Cells, " ")})
	}
	want := []named{
		{plandiff.Changed, plandiff.WhatQuery, "name", "xs/duckdb"},
		{plandiff.Changed, plandiff.WhatScenario, "total", "xs/sqlite xs/duckdb"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes %+v, want %+v", got, want)
	}
	for _, c := range r.Changes {
		if len(c.Details) != 1 {
			t.Errorf("%s %s: details %+v, want one", c.What, c.Name, c.Details)
			continue
		}
		d := c.Details[0]
		switch c.What {
		case plandiff.WhatQuery:
			if d.Field != "sql (duckdb)" || !strings.Contains(d.Diff, "\n+LIMIT 1\n") || strings.Contains(d.Diff, "\n-") {
				t.Errorf("query diff %q:\n%s", d.Field, d.Diff)
			}
		case plandiff.WhatScenario:
			if d.Field != "points" || !strings.Contains(d.Diff, "\n+clients 2") {
				t.Errorf("scenario diff %q:\n%s", d.Field, d.Diff)
			}
			for _, e := range c.Estimates {
				if e.New.HiS <= e.Old.HiS || e.New.LoS <= e.Old.LoS {
					t.Errorf("%s: estimate %v -> %v, want longer", e.Cell, e.Old, e.New)
				}
			}
		}
	}
	if r.NewEst.HiS <= r.OldEst.HiS || r.NewPoints != r.OldPoints+2 {
		t.Errorf("totals %v (%d points) -> %v (%d points)", r.OldEst, r.OldPoints, r.NewEst, r.NewPoints)
	}
}

// run applies the spec in dir and returns its results directory.
func run(t *testing.T, dir string) string {
	t.Helper()
	data := t.TempDir()
	p := buildPlan(t, dir, config.VarArg{Name: "data_dir", Value: data})
	res := filepath.Join(t.TempDir(), "run")
	o, err := runner.Run(context.Background(), p, runner.Options{Registry: drivers.Default, ResultsDir: res, DataDir: data, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if o.Failed() {
		t.Fatalf("run failed: %+v", o)
	}
	return res
}

func TestUnchangedAfterReview(t *testing.T) {
	before := copyDir(t, "testdata/review")
	after := copyDir(t, "testdata/review")
	reviewChange(t, after)
	oldRes, newRes := run(t, before), run(t, after)

	c, err := compare.Unchanged(loadRun(t, oldRes), loadRun(t, newRes))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range c.NotCompared {
		got = append(got, n.String())
	}
	want := []string{
		"lookup duckdb xs: changed definition (query name), not compared",
		"total duckdb xs: changed definition (scenario), not compared",
		"total sqlite xs: changed definition (scenario), not compared",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("not compared:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(c.BackendChanged) != 0 || len(c.DatasetChanged) != 0 || !c.LoadComparable("sqlite", "xs") {
		t.Errorf("backends changed: %v, datasets changed: %v", c.BackendChanged, c.DatasetChanged)
	}
	changed := map[string]bool{"lookup duckdb": true, "total duckdb": true, "total sqlite": true}
	for _, dir := range []string{oldRes, newRes} {
		rows, err := results.ReadTimings(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 6 {
			t.Fatalf("%s: %d timing rows, want at least 6", dir, len(rows))
		}
		for _, r := range rows {
			if got, want := c.Comparable(r.Key()), !changed[r.Scenario+" "+r.Backend]; got != want {
				t.Errorf("%s: comparable %v, want %v", r.Key(), got, want)
			}
		}
	}

	// Identical definitions: everything comparable.
	same, err := compare.Unchanged(loadRun(t, newRes), loadRun(t, newRes))
	if err != nil || len(same.NotCompared) != 0 {
		t.Errorf("a run against itself: %v, %+v", err, same)
	}
	// A directory from before fingerprints: the caller falls back.
	if _, err := compare.Unchanged(loadRun(t, t.TempDir()), loadRun(t, newRes)); !errors.Is(err, results.ErrNoFingerprints) {
		t.Errorf("no fingerprints: %v, want ErrNoFingerprints", err)
	}
}

func TestWriteFingerprintsKeepsOtherCells(t *testing.T) {
	dir := t.TempDir()
	p := buildPlan(t, copyDir(t, "testdata/review"))
	if err := results.WriteFingerprints(dir, plandesc.Describe(p).Fingerprints()); err != nil {
		t.Fatal(err)
	}
	f, err := results.ReadFingerprints(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cells) != 2 || len(f.Cells["xs/sqlite"].Scenarios) != 3 || f.Cells["xs/duckdb"].Queries["name"] == "" {
		t.Fatalf("fingerprints %+v", f)
	}
	// An earlier invocation ran another cell in the same directory.
	other := f.Cells["xs/sqlite"]
	other.Scale = "s"
	f.Cells["s/sqlite"] = other
	b, _ := json.Marshal(f)
	if err := os.WriteFile(filepath.Join(dir, results.FingerprintsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFingerprints(dir, plandesc.Describe(p).Fingerprints()); err != nil {
		t.Fatal(err)
	}
	g, err := results.ReadFingerprints(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cells) != 3 || g.Cells["s/sqlite"].Scale != "s" {
		t.Errorf("cells after a second write: %v", g.Cells)
	}
	if err := os.WriteFile(filepath.Join(dir, results.FingerprintsFile), []byte(`{"version": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.ReadFingerprints(dir); err == nil || errors.Is(err, results.ErrNoFingerprints) {
		t.Errorf("unknown version: %v", err)
	}
}

// TestDiffChecksIgnoresLayout: a check's expressions are compared as
// canonical source: comments and line breaks change nothing, a value
// does.
func TestDiffChecksIgnoresLayout(t *testing.T) {
	before := copyDir(t, "testdata/review")
	layout := copyDir(t, "testdata/review")
	edit(t, filepath.Join(layout, "spec.hcl"), `expect_values = { name = each.value["user/name"] }`,
		"expect_values = { # the generator's name\n      name =   each.value[\"user/name\"]\n    }")
	value := copyDir(t, "testdata/review")
	edit(t, filepath.Join(value, "spec.hcl"), `expect_values = { n = scale.users }`, `expect_values = { n = scale.users + 0 }`)
	a := plandesc.Describe(buildPlan(t, before))
	if r := plandiff.Between("a", "b", a, plandesc.Describe(buildPlan(t, layout))); !r.Empty() {
		t.Errorf("a layout change is reported: %+v", r.Changes)
	}
	r := plandiff.Between("a", "b", a, plandesc.Describe(buildPlan(t, value)))
	if len(r.Changes) != 1 || r.Changes[0].Name != "total" || r.Changes[0].Details[0].Field != "checks" ||
		!strings.Contains(r.Changes[0].Details[0].Diff, "+check all: query count; expect_values = { n = scale.users + 0 }") {
		t.Errorf("a check's value change: %+v", r.Changes)
	}
}

// TestUnchangedDataset: a new seed makes every row of the scale, and its
// loads, incomparable.
func TestUnchangedDataset(t *testing.T) {
	before := copyDir(t, "testdata/review")
	after := copyDir(t, "testdata/review")
	edit(t, filepath.Join(after, "spec.hcl"), "seed = 11", "seed = 12")
	oldRes, newRes := t.TempDir(), t.TempDir()
	if err := results.WriteFingerprints(oldRes, plandesc.Describe(buildPlan(t, before)).Fingerprints()); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFingerprints(newRes, plandesc.Describe(buildPlan(t, after)).Fingerprints()); err != nil {
		t.Fatal(err)
	}
	c, err := compare.Unchanged(loadRun(t, oldRes), loadRun(t, newRes))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.NotCompared) != 6 || !reflect.DeepEqual(c.DatasetChanged, []string{"xs/duckdb", "xs/sqlite"}) {
		t.Errorf("not compared %v, datasets changed %v", c.NotCompared, c.DatasetChanged)
	}
	for _, n := range c.NotCompared {
		if !reflect.DeepEqual(n.Reasons, []string{"dataset"}) {
			t.Errorf("%s", n)
		}
	}
	if c.LoadComparable("sqlite", "xs") || c.Comparable(results.Key{Scenario: "scan", Backend: "duckdb", Scale: "xs", Clients: 1, Op: "read"}) {
		t.Error("rows of a changed dataset are comparable")
	}
}

// A backend's extensions, session setup and explain statement are
// changes plan -diff names, each its own detail.
func TestDiffSessionAttributes(t *testing.T) {
	before := copyDir(t, "testdata/review")
	after := copyDir(t, "testdata/review")
	edit(t, filepath.Join(after, "spec.hcl"), "  after_load = [\"CREATE INDEX log_text_av ON log_text (a, v)\"]\n",
		"  after_load = [\"CREATE INDEX log_text_av ON log_text (a, v)\"]\n  extensions = [{ path = \"/opt/x.so\", entry_point = \"x_init\" }]\n  session_setup = [\"PRAGMA cache_size = -1000\"]\n  explain = \"SELECT x_explain(:q)\"\n")
	d := plandiff.Between("old", "new", plandesc.Describe(buildPlan(t, before)), plandesc.Describe(buildPlan(t, after)))
	got := map[string]string{}
	for _, c := range d.Changes {
		if c.What != plandiff.WhatBackend || c.Name != "sqlite" {
			continue
		}
		for _, det := range c.Details {
			got[det.Field] = det.New + det.Diff
		}
	}
	for field, want := range map[string]string{"extensions": "/opt/x.so (entry point x_init)", "session_setup": "PRAGMA cache_size = -1000", "explain": "SELECT x_explain(:q)"} {
		if !strings.Contains(got[field], want) {
			t.Errorf("%s: %q, want it to hold %q (details %v)", field, got[field], want, got)
		}
	}
	if _, ok := got["allow_unsigned_extensions"]; ok {
		t.Errorf("allow_unsigned_extensions did not change, yet is a detail: %v", got)
	}
}

// loadRun loads the results directory dir.
func loadRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
