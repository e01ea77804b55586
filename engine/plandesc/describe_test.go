package plandesc_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
)

// TestDescribeRedactsSecrets: an option built from a sensitive variable
// is neither shown nor fingerprinted, and changing it is no change.
func TestDescribeRedactsSecrets(t *testing.T) {
	quick := "../../examples"
	build := func(dsn string) *plandesc.Description {
		spec, diags := config.Load([]string{filepath.Join(quick, "quickstart.hcl")}, config.Options{Vars: []config.VarArg{
			{Name: "backends", Value: `["postgres"]`}, {Name: "pg_dsn", Value: dsn}}})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		p, diags := plan.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return plandesc.Describe(p)
	}
	a := build("postgres://bench:hunter2-secret@127.0.0.1:5432/postgres")
	b := build("postgres://bench:other-secret@127.0.0.1:5433/postgres")
	js, _ := json.Marshal(a)
	if strings.Contains(string(js), "hunter2-secret") {
		t.Fatalf("the description shows the secret: %s", js)
	}
	if got := a.Cells[0].Backend.Options["dsn"]; got != "(sensitive)" {
		t.Errorf("dsn option %q", got)
	}
	if a.Cells[0].Backend.Options["database"] != "mentat_quickstart_xs" {
		t.Errorf("a plain option was redacted: %v", a.Cells[0].Backend.Options)
	}
	if oa, ob := a.Cells[0].Backend.Options, b.Cells[0].Backend.Options; !reflect.DeepEqual(oa, ob) {
		t.Errorf("changing a secret changes the options shown: %v, %v", oa, ob)
	}
	if fa, fb := a.Fingerprints(), b.Fingerprints(); !reflect.DeepEqual(fa, fb) {
		t.Errorf("changing a secret changes the fingerprints:\n%+v\n%+v", fa, fb)
	}
}
