// Package specs holds the release suite (full.hcl) and the shared mentat
// workload it reads (mentat/: HCL blocks and SQL). Its test keeps the
// suite and the examples valid, and checks that the quickstart and the
// suite read one workload from mentat/ rather than copies of it.
package specs

import (
	"context"
	"encoding/json"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/zclconf/go-cty/cty"
)

func load(t *testing.T, path string) *config.Spec {
	t.Helper()
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatalf("%s: %s", path, diags.Error())
	}
	return spec
}

func TestSpecsValidate(t *testing.T) {
	for _, p := range []string{"full.hcl", "../examples/quickstart.hcl", "../examples/library/library.hcl", "../examples/open-loop.hcl"} {
		t.Run(filepath.Base(p), func(t *testing.T) { load(t, p) })
	}
}

// TestQuickstartMatchesTheSuite: the quickstart and the suite declare
// their scales, dataset, queries and shared scenarios once, in mentat/, and
// resolve them to the same values; they differ in knobs (sampling,
// defaults), stores and the suite's extra scenarios.
func TestQuickstartMatchesTheSuite(t *testing.T) {
	full := load(t, "full.hcl")
	quick := load(t, "../examples/quickstart.hcl")

	shared := func(what string, q, f hcl.Range) {
		t.Helper()
		qa, _ := filepath.Abs(q.Filename)
		fa, _ := filepath.Abs(f.Filename)
		dir, _ := filepath.Abs("mentat")
		if qa != fa || q.Start != f.Start {
			t.Errorf("%s: declared at %s in the quickstart and at %s in full.hcl, not once", what, q, f)
		} else if d := filepath.Dir(qa); d != dir && !strings.HasPrefix(d, dir+string(filepath.Separator)) {
			t.Errorf("%s: declared in %s, not in the shared workload (specs/mentat)", what, q.Filename)
		}
	}
	shared("dataset", quick.SelectedDataset().DeclRange, full.SelectedDataset().DeclRange)
	for _, sc := range quick.Scales {
		if fsc := full.Scale(sc.Name); fsc != nil {
			shared("scale "+sc.Name, sc.DeclRange, fsc.DeclRange)
		}
	}
	for _, q := range quick.Queries {
		if fq := full.Query(q.Name); fq != nil {
			shared("query "+q.Name, q.DeclRange, fq.DeclRange)
		}
	}
	for _, sc := range quick.Scenarios {
		if fs := findScenario(full, sc.Name); fs != nil {
			shared("scenario "+sc.Name, sc.DeclRange, fs.DeclRange)
		}
	}
	if len(full.Scenarios) != len(quick.Scenarios)+4 {
		t.Errorf("full.hcl has %d scenarios, the quickstart %d: the suite adds concurrency_sweep, cold_vs_warm, sustained and capacity", len(full.Scenarios), len(quick.Scenarios))
	}

	for _, sc := range quick.Scales {
		fsc := full.Scale(sc.Name)
		if fsc == nil {
			t.Fatalf("full.hcl lacks scale %s", sc.Name)
		}
		a, d1 := resolve.Dataset(quick.SelectedDataset(), quick.ScaleContext(sc))
		b, d2 := resolve.Dataset(full.SelectedDataset(), full.ScaleContext(fsc))
		if d1.HasErrors() || d2.HasErrors() {
			t.Fatalf("scale %s: %s %s", sc.Name, d1.Error(), d2.Error())
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("scale %s: the datasets differ:\nquickstart %s\nfull       %s", sc.Name, ja, jb)
		}
	}

	xs := quick.Scale("xs")
	for _, qb := range quick.Backends {
		fb := full.Backend(qb.Name)
		if fb == nil {
			t.Fatalf("full.hcl lacks backend %s", qb.Name)
		}
		qctx := quick.CellContext(config.Cell{Scale: xs, Backend: qb}, cty.NilVal)
		fctx := full.CellContext(config.Cell{Scale: full.Scale("xs"), Backend: fb}, cty.NilVal)
		qc, _ := resolve.Backend(qb, qctx, "")
		fc, _ := resolve.Backend(fb, fctx, "")
		if !reflect.DeepEqual(qc.Setup, fc.Setup) || !reflect.DeepEqual(qc.AfterLoad, fc.AfterLoad) || !reflect.DeepEqual(qc.Load, fc.Load) {
			t.Errorf("backend %s: setup, after_load or load differ", qb.Name)
		}
		for _, q := range quick.Queries {
			fq := full.Query(q.Name)
			if fq == nil {
				t.Errorf("full.hcl lacks query %s", q.Name)
				continue
			}
			a, _ := resolve.Query(q, qctx, qb.Driver)
			b, _ := resolve.Query(fq, fctx, fb.Driver)
			if a.SQL != b.SQL {
				t.Errorf("query %s on %s: the SQL differs", q.Name, qb.Name)
			}
			if len(a.Params) != len(b.Params) {
				t.Errorf("query %s: the params differ", q.Name)
			}
		}
	}

	for _, sc := range quick.Scenarios {
		fs := findScenario(full, sc.Name)
		if fs == nil {
			t.Errorf("full.hcl lacks scenario %s", sc.Name)
			continue
		}
		if names(sc) != names(fs) {
			t.Errorf("scenario %s: checks %q in the quickstart, %q in full.hcl", sc.Name, names(sc), names(fs))
		}
	}
}

func findScenario(s *config.Spec, name string) *config.ScenarioBlock {
	for _, sc := range s.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

func names(sc *config.ScenarioBlock) string {
	var out string
	for _, q := range sc.Queries() {
		out += "query:" + q + " "
	}
	for _, ck := range sc.Checks {
		out += "check:" + ck.Name + "/" + ck.Query + " "
	}
	return out
}

// TestSustainedKnobs: full.hcl's sustained scenario keeps the seed suite's
// meaning: no point while sustained_s is 0, and with it set, one point
// on the largest selected scale only, with its samplers per backend.
func TestSustainedKnobs(t *testing.T) {
	tests := []struct {
		name   string
		vars   []config.VarArg
		points map[string]int // scale/backend -> sustained points
	}{
		{"off by default", nil, map[string]int{"xs/sqlite": 0}},
		{"largest scale", []config.VarArg{{Name: "sustained_s", Value: "30"}, {Name: "scales", Value: `["s", "xs"]`}},
			map[string]int{"s/sqlite": 1, "xs/sqlite": -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := append([]config.VarArg{{Name: "backends", Value: `["sqlite", "postgres"]`}, {Name: "scenarios", Value: `["sustained"]`},
				{Name: "pg_dsn", Value: "postgres://127.0.0.1:1/x"}}, tt.vars...)
			if len(tt.vars) == 0 {
				vars = append(vars, config.VarArg{Name: "scales", Value: `["xs"]`})
			}
			spec, diags := config.Load([]string{"full.hcl"}, config.Options{Env: []string{}, Vars: vars})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, sp := range p.Scales {
				for _, c := range sp.Cells {
					got := -1
					var samplers []string
					for _, sc := range c.Scenarios {
						if sc.Name == "sustained" {
							got = len(sc.Points)
							for _, s := range sc.Samplers {
								samplers = append(samplers, s.Name)
							}
						}
					}
					if want, ok := tt.points[c.Name()]; ok && got != want {
						t.Errorf("%s: %d sustained points, want %d", c.Name(), got, want)
					}
					wantSamplers := 3 // iostat, vmstat, processes
					if c.Backend.Name == "postgres" {
						wantSamplers = 7
					}
					if got >= 0 && len(samplers) != wantSamplers {
						t.Errorf("%s: samplers %v, want %d", c.Name(), samplers, wantSamplers)
					}
				}
			}
		})
	}
}
