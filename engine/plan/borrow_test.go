package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
)

// TestChecksOfAWritingScenarioCoverReads: in the bank spec the only check
// of query count is declared by the scenario that writes; a capacity
// search and a read-only scenario of that query borrow it, and plan does
// not call the query unchecked ("no check of any scenario reads it" was
// false).
func TestChecksOfAWritingScenarioCoverReads(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "resolve", "testdata", "bank", "bank.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	extra := `
scenario "cap" {
  kind = "capacity"
  service_level {
    max_ms = 50
  }
  read {
    mix = [query.count]
  }
}

scenario "reads" {
  read {
    mix = [query.count, query.balance]
  }
}
`
	path := filepath.Join(t.TempDir(), "bank.hcl")
	if err := os.WriteFile(path, append(src, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	c := p.Scales[0].Cells[0]
	for _, tc := range []struct {
		scenario  string
		checks    []string
		unchecked []string
	}{
		{"cap", []string{"accounts (from bank)"}, nil},
		{"reads", []string{"accounts (from bank)"}, []string{"balance"}}, // no check reads balance anywhere
	} {
		var s *plan.Scenario
		for _, x := range c.Scenarios {
			if x.Name == tc.scenario {
				s = x
			}
		}
		if s == nil {
			t.Fatalf("no scenario %s", tc.scenario)
		}
		if !reflect.DeepEqual(s.CheckNames, tc.checks) || !reflect.DeepEqual(s.Unchecked, tc.unchecked) {
			t.Errorf("%s: checks %q unchecked %q, want %q and %q", tc.scenario, s.CheckNames, s.Unchecked, tc.checks, tc.unchecked)
		}
	}
}
