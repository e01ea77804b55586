package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
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
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			// validate refuses what plan refuses, with the same diagnostic.
			vdiags := resolve.Validate(spec, plan.Drivers(drivers.Default))
			if tc.want == "" && vdiags.HasErrors() {
				t.Fatalf("validate refused: %s", vdiags.Error())
			}
			if tc.want != "" && !strings.Contains(vdiags.Error(), tc.want) {
				t.Errorf("validate: got %q, want %q", vdiags.Error(), tc.want)
			}
			_, diags = planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
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

// On a backend whose clients run in worker processes, plan says which
// scenarios run theirs as goroutines of the coordinator anyway (the kinds
// without workers): only cold_warm, no closed_loop, sustained or
// open_loop scenario.
func TestPlanSaysWhereClientsRun(t *testing.T) {
	out := string(render(t, []string{"../../specs/full.hcl"}, []config.VarArg{
		{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite-ext"]`}}, 1))
	if !strings.Contains(out, "clients: one worker process per client") {
		t.Fatalf("no client model line:\n%s", out)
	}
	var inProcess []string
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "clients: goroutines of this process") {
			inProcess = append(inProcess, strings.TrimSpace(lines[i-1]))
		}
	}
	want := []string{"cold_vs_warm (cold_warm)"}
	if !strings.Contains(out, "sustained (sustained)") {
		t.Fatalf("no sustained scenario in the plan:\n%s", out)
	}
	if len(inProcess) != len(want) {
		t.Fatalf("scenarios said to run in the coordinator: %q, want %q", inProcess, want)
	}
	for i, w := range want {
		if !strings.Contains(inProcess[i], w) {
			t.Errorf("scenario %d in the coordinator: %q, want %q", i, inProcess[i], w)
		}
	}
	// write_mixed's readers run in workers, its writer here.
	for i, l := range lines {
		if strings.Contains(l, "write_mixed (write_mixed)") && !strings.Contains(lines[i+1], "clients: readers in worker processes, the writer in this process") {
			t.Errorf("write_mixed's line is followed by %q", lines[i+1])
		}
	}
	goroutines := string(render(t, []string{"../../specs/full.hcl"}, []config.VarArg{
		{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite"]`}}, 1))
	if strings.Contains(goroutines, "goroutines of this process") {
		t.Error("a goroutine backend says where its clients run: nothing to say there")
	}
}
