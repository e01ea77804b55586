package plandesc_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
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
		p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
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

// TestDescribeQueryEDN: a query's edn text (what a deployment's explain
// statement binds) is in its description and fingerprint, so changing it
// is a change.
func TestDescribeQueryEDN(t *testing.T) {
	build := func(paths ...string) *plandesc.Description {
		spec, diags := config.Load(paths, config.Options{Env: []string{}})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return plandesc.Describe(p)
	}
	q1 := func(d *plandesc.Description) plandesc.QueryDesc {
		for _, q := range d.Cells[0].Queries {
			if q.Name == "q1" {
				return q
			}
		}
		t.Fatal("no q1")
		return plandesc.QueryDesc{}
	}
	dir := t.TempDir()
	write := func(name, edn string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`query "q1" { edn = "`+edn+`" }`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	quick := "../../examples/quickstart.hcl"
	plain := q1(build(quick))
	a := q1(build(quick, write("a_override.hcl", "[:find ?e :where [?e :user/email _]]")))
	b := q1(build(quick, write("b_override.hcl", "[:find ?n :where [_ :user/name ?n]]")))
	if plain.EDN != "" || a.EDN != "[:find ?e :where [?e :user/email _]]" {
		t.Errorf("edn described as %q and %q", plain.EDN, a.EDN)
	}
	if a.Fingerprint == plain.Fingerprint || a.Fingerprint == b.Fingerprint {
		t.Errorf("fingerprints: none %s, a %s, b %s: a change of edn is no change", plain.Fingerprint, a.Fingerprint, b.Fingerprint)
	}
}
