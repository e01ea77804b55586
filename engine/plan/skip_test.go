package plan_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// full.hcl's embedded_skip_scenarios (the seed suite's EXT_SCENARIO_FILTER)
// removes scenarios from the embedded backends only; a name that is no
// scenario is an error at the variable's use.
func TestEmbeddedSkipScenarios(t *testing.T) {
	load := func(skip string) (*config.Spec, string) {
		spec, diags := config.Load([]string{"../../specs/full.hcl"}, config.Options{Env: []string{}, Vars: []config.VarArg{
			{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite","duckdb","postgres"]`},
			{Name: "pg_dsn", Value: "postgres://127.0.0.1:1/x"}, {Name: "embedded_skip_scenarios", Value: skip}}})
		if !diags.HasErrors() {
			diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
		}
		if !diags.HasErrors() {
			return spec, ""
		}
		return spec, diags.Error()
	}
	spec, errs := load(`["pull","as_of"]`)
	if errs != "" {
		t.Fatal(errs)
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, c := range p.Scales[0].Cells {
		var names []string
		for _, s := range c.Scenarios {
			names = append(names, s.Name)
		}
		skipped := !slices.Contains(names, "pull") && !slices.Contains(names, "as_of")
		if want := c.Backend.Name != "postgres"; skipped != want || !slices.Contains(names, "point_lookup") {
			t.Errorf("%s runs %v", c.Backend.Name, names)
		}
	}
	if _, errs := load(`["nope"]`); !strings.Contains(errs, "full.hcl:") || !strings.Contains(errs, `skip_scenarios names "nope"`) {
		t.Errorf("an unknown scenario: %q", errs)
	}
}
