package planbuild_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
)

const checkerSpec = `
variable "rows" {
  default = 3
}
locals {
  extra = 1
}
matrix {
  scales   = ["xs", "s"]
  backends = ["lite"]
}
scale "xs" {
  users = 10
}
scale "s" {
  users = 20
}
dataset "d" {
  entity "user" {
    count = scale.users
    attr "user/name" {
      type = "string"
      gen  = seq("u%d")
    }
  }
}
backend "lite" {
  driver = "sqlite"
  path   = "d.sqlite"
}
query "q" {
  params = { name = "x" }
  sql    = "SELECT 1 WHERE :name <> ''"
}
query "r" {
  sql = "SELECT 1"
}
scenario "own" {
  read {
    mix = [query.q]
  }
  check "per_name" {
    query       = query.q
    for_each    = truth.names
    params      = { name = each.value }
    expect_rows = var.rows + local.extra
  }
  check "invariant" {
    query       = query.r
    expect_rows = local.extra
    during_ms   = var.rows * 100
  }
  check "scaled" {
    query         = query.r
    expect_values = { users = scale.users, backend = backend.name, total = truth.total }
  }
}
scenario "reader" {
  read {
    mix = [query.r]
  }
}
`

// TestCheckerCarriesItsContext: the checks a plan carries evaluate with
// the variables, locals, scale and backend their cell was built with,
// and with the truth given when they run, so a run evaluates them (and
// again after writes, with the truth advanced) with no spec beside the
// plan.
func TestCheckerCarriesItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.hcl")
	if err := os.WriteFile(path, []byte(checkerSpec), 0o644); err != nil {
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
	spec = nil // the plan alone from here on
	rows, one := int64(4), int64(1)
	invariant := plan.Check{Name: "invariant", Query: "r", DuringMS: 300, Cases: []plan.CheckCase{{Params: map[string]params.Spec{}, Expect: checks.Expect{Rows: &one}}}}
	tests := []struct {
		scale, scenario string
		names           []any
		total           int64
		want            []plan.Check
	}{
		{"xs", "own", []any{"a", "b"}, 7, []plan.Check{
			{Name: "per_name", Query: "q", Cases: []plan.CheckCase{
				{Key: "0", Params: map[string]params.Spec{"name": {Kind: params.Const, Value: "a"}}, Expect: checks.Expect{Rows: &rows}},
				{Key: "1", Params: map[string]params.Spec{"name": {Kind: params.Const, Value: "b"}}, Expect: checks.Expect{Rows: &rows}},
			}},
			invariant,
			{Name: "scaled", Query: "r", Cases: []plan.CheckCase{{Params: map[string]params.Spec{},
				Expect: checks.Expect{Values: map[string]any{"users": 10.0, "backend": "lite", "total": 7.0}}}}},
		}},
		// Another scale's cell, another truth (as after writes).
		{"s", "own", []any{"c"}, 9, []plan.Check{
			{Name: "per_name", Query: "q", Cases: []plan.CheckCase{
				{Key: "0", Params: map[string]params.Spec{"name": {Kind: params.Const, Value: "c"}}, Expect: checks.Expect{Rows: &rows}},
			}},
			invariant,
			{Name: "scaled", Query: "r", Cases: []plan.CheckCase{{Params: map[string]params.Spec{},
				Expect: checks.Expect{Values: map[string]any{"users": 20.0, "backend": "lite", "total": 9.0}}}}},
		}},
		// A borrowed check evaluates in the borrowing scenario's cell.
		{"s", "reader", []any{"c"}, 5, []plan.Check{
			borrowed(invariant),
			{Name: "scaled (from own)", Query: "r", Cases: []plan.CheckCase{{Params: map[string]params.Spec{},
				Expect: checks.Expect{Values: map[string]any{"users": 20.0, "backend": "lite", "total": 5.0}}}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scale+"/"+tt.scenario, func(t *testing.T) {
			var c *plan.Cell
			for _, sp := range p.Scales {
				if sp.Name == tt.scale {
					c = sp.Cells[0]
				}
			}
			var s *plan.Scenario
			for _, x := range c.Scenarios {
				if x.Name == tt.scenario {
					s = x
				}
			}
			tr, err := plan.NewTruth(&truth.Truth{Values: map[string]any{"names": tt.names, "total": tt.total}})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Checks(s, tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// borrowed is check as scenario own's, borrowed by another.
func borrowed(ck plan.Check) plan.Check {
	ck.Name += " (from own)"
	return ck
}
