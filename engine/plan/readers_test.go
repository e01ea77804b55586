package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// A backend whose readers open the file immutable cannot run a scenario
// that writes: the plan refuses it at the scenario's line, and builds
// when only reading scenarios are selected.
func TestImmutableReadersRefuseWrites(t *testing.T) {
	for _, tc := range []struct {
		name, scenarios string
		files           []string
		want            string // "" builds
	}{
		{"immutable, writes selected", `["point_lookup","write_mixed"]`, []string{"testdata/immutable_override.hcl"}, `write_mixed.hcl:19,1-`},
		{"immutable, reads only", `["point_lookup","pull"]`, []string{"testdata/immutable_override.hcl"}, ""},
		{"locking, writes selected", `["point_lookup","write_mixed"]`, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := append([]string{"../../examples/quickstart.hcl"}, tc.files...)
			spec, diags := config.Load(paths, config.Options{Env: []string{}, Vars: []config.VarArg{{Name: "scenarios", Value: tc.scenarios}}})
			if !diags.HasErrors() {
				diags = append(diags, spec.Validate(plan.Drivers(drivers.Default))...)
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			_, diags = plan.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
			got := diags.Error()
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) || !strings.Contains(got, `readers = "immutable"`) || !strings.Contains(got, `"write_mixed"`) {
				t.Errorf("got %q, want the write_mixed scenario refused at its line (%s) naming the option", got, tc.want)
			}
		})
	}
}
