package planbuild_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// root is the repository root, from this package's directory.
var root = filepath.Join("..", "..")

// TestExamplesPlanGolden keeps the plan of every example spec and of
// specs/full.hcl as it was made when the plan still carried the decoded
// spec: plan's text, and the fingerprints of what plan's text leaves out
// (each query's SQL and parameters, the backends' setup, each scenario's
// checks as written), byte for byte.
func TestExamplesPlanGolden(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		vars  []config.VarArg
	}{
		{"quickstart", []string{"examples/quickstart.hcl"}, nil},
		{"open-loop", []string{"examples/open-loop.hcl"}, nil},
		{"fleet", []string{"examples/fleet"}, nil},
		{"library", []string{"examples/library"}, nil},
		{"tpcb", []string{"examples/tpcb"}, []config.VarArg{{Name: "backends", Value: `["sqlite","duckdb","postgres"]`}}},
		{"tpcb-pgbench", []string{"examples/tpcb", "examples/tpcb/pgbench"}, []config.VarArg{{Name: "accounts_per_branch", Value: "1000"}}},
		{"ycsb", []string{"examples/ycsb"}, []config.VarArg{{Name: "backends", Value: `["sqlite","duckdb","postgres"]`}}},
		{"full-xs", []string{"specs/full.hcl"}, []config.VarArg{{Name: "scales", Value: `["xs"]`},
			{Name: "backends", Value: `["sqlite","duckdb","postgres","sqlite-ext","duckdb-readers"]`}}},
		{"full-xs-process", []string{"specs/full.hcl"}, []config.VarArg{{Name: "scales", Value: `["xs"]`}, {Name: "client_model", Value: "process"}}},
		{"deployment-duckdb", []string{"specs/deployments/duckdb.hcl"}, nil},
		{"deployment-pg_mentat", []string{"specs/deployments/pg_mentat.hcl"}, nil},
		{"deployment-sqlite-ext", []string{"specs/deployments/sqlite-ext.hcl"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, p := range tt.paths {
				paths = append(paths, filepath.Join(root, p))
			}
			got := describe(t, paths, tt.vars)
			path := filepath.Join("testdata", "examples", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./engine/planbuild -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the plan differs from %s (run go test ./engine/planbuild -update after checking the change):\n got:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// describe builds the plan of a spec and returns its text and its
// description's fingerprints, one a line.
func describe(t *testing.T, paths []string, vars []config.VarArg) []byte {
	t.Helper()
	spec, diags := config.Load(paths, config.Options{Vars: vars, Env: []string{}})
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
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	d := plandesc.Describe(p)
	fmt.Fprintf(&b, "\nfingerprints:\n")
	for _, ds := range d.Datasets {
		fmt.Fprintf(&b, "dataset %s %s\n", ds.Scale, ds.Fingerprint)
	}
	for _, c := range d.Cells {
		fmt.Fprintf(&b, "backend %s %s\n", c.Name(), c.Backend.Fingerprint)
		for _, q := range c.Queries {
			fmt.Fprintf(&b, "query %s %s %s\n", c.Name(), q.Name, q.Fingerprint)
		}
		for _, s := range c.Scenarios {
			fmt.Fprintf(&b, "scenario %s %s %s (%d checks)\n", c.Name(), s.Name, s.Fingerprint, len(s.Checks))
		}
	}
	return []byte(strings.ReplaceAll(b.String(), "\r\n", "\n"))
}
