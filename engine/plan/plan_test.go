package plan_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// render loads, validates, builds and renders a spec with workers
// goroutines counting the dataset.
func render(t *testing.T, paths []string, vars []config.VarArg, workers int) []byte {
	t.Helper()
	spec, diags := config.Load(paths, config.Options{Vars: vars, Env: []string{}})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if len(diags) > 0 {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), workers)
	if len(diags) > 0 {
		t.Fatal(diags.Error())
	}
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		golden string
		paths  []string
		vars   []config.VarArg
	}{
		{
			golden: "quickstart.golden",
			paths:  []string{filepath.Join("..", "..", "examples", "quickstart.hcl")},
			vars: []config.VarArg{
				{Name: "backends", Value: `["sqlite", "duckdb", "postgres"]`},
				{Name: "scales", Value: `["xs", "s"]`},
			},
		},
		{
			golden: "matrix.golden",
			paths:  []string{filepath.Join("testdata", "matrix.hcl")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got := render(t, tt.paths, tt.vars, 1)
			// Deterministic: the same bytes again, whatever the parallelism.
			if again := render(t, tt.paths, tt.vars, 4); !bytes.Equal(got, again) {
				t.Fatalf("two renders differ:\n%s\n---\n%s", got, again)
			}
			path := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./engine/plan -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Render differs from %s (run go test ./engine/plan -update after checking the change):\n got:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	spec, diags := config.Load([]string{filepath.Join("testdata", "matrix.hcl")}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if p.Dataset != "shop" || len(p.Scales) != 2 || p.Scales[0].Name != "xs" || p.Scales[1].Name != "s" {
		t.Fatalf("plan %q with %d scales", p.Dataset, len(p.Scales))
	}
	xs := p.Scales[0]
	if got := xs.Stats.Entities["order"]; got != 25000 {
		t.Errorf("xs orders %d, want 25000", got)
	}
	var backends []string
	for _, c := range xs.Cells {
		backends = append(backends, c.Backend.Name)
	}
	if want := []string{"lite", "duck", "preloaded"}; !equal(backends, want) {
		t.Errorf("backends %v, want matrix order %v", backends, want)
	}
	// status runs on duck only.
	for _, c := range xs.Cells {
		n := len(c.Scenarios)
		if want := map[string]int{"lite": 2, "duck": 3, "preloaded": 2}[c.Backend.Name]; n != want {
			t.Errorf("%s: %d scenarios, want %d", c.Backend.Name, n, want)
		}
	}
	mixed := xs.Cells[0].Scenarios[1]
	if mixed.Name != "mixed" || mixed.Kind != "closed_loop" || len(mixed.Points) != 2 || !mixed.Writes {
		t.Fatalf("mixed: %+v", mixed)
	}
	if got, want := mixed.Points[1].Describe(), "clients 16   read by_email+orders_of x16; write ship x1"; got != want {
		t.Errorf("mixed at 16 clients: %q, want %q", got, want)
	}
	if mixed.Sampling.Reps != 3 || mixed.Sampling.Warmup != 2 {
		t.Errorf("mixed sampling %+v: want reps 3 over the spec's warmup 2", mixed.Sampling)
	}
	if e := p.Estimate(); e.Lo <= 0 || e.Hi < e.Lo {
		t.Errorf("estimate %v", e)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestThousands(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0"},
		{7, "7"},
		{999, "999"},
		{1000, "1,000"},
		{12345, "12,345"},
		{123456, "123,456"},
		{1234567, "1,234,567"},
		{-1, "-1"},
		{-1000, "-1,000"},
		{-123456789, "-123,456,789"},
		{9223372036854775807, "9,223,372,036,854,775,807"},
	}
	for _, tt := range tests {
		if got := plan.Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
