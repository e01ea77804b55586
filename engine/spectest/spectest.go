// Package spectest is the test kit for a spec run end to end inside a
// test: the spec's files and override files loaded with variables,
// validated as apply validates them, planned, and run into a results
// directory, against every registered driver and kind. Tests that need
// a run's files (evidence, history, capacity) share it instead of each
// repeating the load-validate-plan-run steps.
package spectest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all" // every driver a spec may name
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all" // every kind a spec may name
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// Root is the repository's root, where examples/ and specs/ are.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Overrides writes each named text into dir and returns the paths, in
// no particular order (override files do not depend on their order).
func Overrides(t testing.TB, dir string, files map[string]string) []string {
	t.Helper()
	var paths []string
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// Plan loads the spec of paths with vars, validates it and builds its
// plan; any error diagnostic fails the test.
func Plan(t testing.TB, paths []string, vars ...config.VarArg) *plan.Plan {
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
	return p
}

// Run runs p into out, its log to log (nil: none); an error or a failure
// of the run fails the test.
func Run(t testing.TB, p *plan.Plan, out string, log io.Writer) {
	t.Helper()
	o, err := runner.Run(context.Background(), p, runner.Options{ResultsDir: out, Registry: drivers.Default, Workers: 2, Log: log})
	if err != nil || o.Failed() {
		t.Fatalf("run: %v %v", err, o.Failures)
	}
}
