package plan_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// build loads, validates and builds a spec.
func build(t *testing.T, paths []string, vars []config.VarArg) *plan.Plan {
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
	return p
}

func cell(t *testing.T, p *plan.Plan, scale, backend string) *plan.Cell {
	t.Helper()
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			if sp.Name == scale && c.Backend.Name == backend {
				return c
			}
		}
	}
	t.Fatalf("no cell %s/%s", scale, backend)
	return nil
}

func scenario(t *testing.T, c *plan.Cell, name string) *plan.Scenario {
	t.Helper()
	for _, s := range c.Scenarios {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("cell %s runs no scenario %q", c.Name(), name)
	return nil
}

func bests(s *plan.Scenario) []time.Duration {
	var out []time.Duration
	for i := range s.Points {
		out = append(out, s.PointEstimate(i).Best)
	}
	return out
}

// TestEstimateFrom reads testdata/history (raw.csv and loads.csv of a
// made-up run of matrix.hcl) and checks each estimate it replaces.
func TestEstimateFrom(t *testing.T) {
	p := build(t, []string{filepath.Join("testdata", "matrix.hcl")}, nil)
	model := bests(scenario(t, cell(t, p, "xs", "duck"), "lookup"))
	h, err := plan.ReadHistory(filepath.Join("testdata", "history"))
	if err != nil {
		t.Fatal(err)
	}
	scenarios, loads, extrapolated := p.EstimateFrom(h)
	if scenarios != 2 || loads != 2 || extrapolated != 2 {
		t.Errorf("matched %d scenarios and %d loads and extrapolated %d, want 2, 2 and 2", scenarios, loads, extrapolated)
	}
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	tests := []struct {
		name          string
		scale, cell   string
		scenario      string // "" for the load
		want          []time.Duration
		measuredRange bool
	}{
		// A sweep: one point per client count, in order.
		{"sweep", "xs", "lite", "lookup", []time.Duration{sec(2), sec(4), sec(6.4)}, true},
		// Points with a writer x1 beside their readers: 3 reps of the two
		// points' longest streams (3 s and 2 s), shared equally.
		{"streams at several client counts", "xs", "lite", "mixed", []time.Duration{sec(7.5), sec(7.5)}, true},
		// A row of errors only (no throughput) measures nothing: the model stays.
		{"no throughput", "xs", "duck", "lookup", model, false},
		{"load with its after-load steps", "xs", "lite", "", []time.Duration{sec(0.8)}, true},
		// Measured at half the datoms the plan's s has: twice the time.
		{"load scaled to the datoms", "s", "duck", "", []time.Duration{sec(3)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cell(t, p, tt.scale, tt.cell)
			var got []time.Duration
			var es []plan.Estimate
			if tt.scenario == "" {
				es = []plan.Estimate{c.LoadEstimate()}
			} else {
				s := scenario(t, c, tt.scenario)
				for i := range s.Points {
					es = append(es, s.PointEstimate(i))
				}
			}
			for _, e := range es {
				got = append(got, e.Best.Round(time.Millisecond))
				if tt.measuredRange && (e.Lo != time.Duration(float64(e.Best)/1.25) || e.Hi != time.Duration(float64(e.Best)*1.25)) {
					t.Errorf("range %v to %v around %v, want 1.25x either side", e.Lo, e.Hi, e.Best)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("best estimates %v, want %v", got, tt.want)
			}
		})
	}
	var b strings.Builder
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "measured in "+filepath.Join("testdata", "history")) {
		t.Errorf("the total does not say where its estimates come from:\n%s", b.String())
	}
}

// TestEstimateRanges checks the model's estimates without history: the
// best estimate within each range, every range within the kind's bounds
// and at most 1.5x either side of the best, the load from the driver's
// cost per datom.
func TestEstimateRanges(t *testing.T) {
	p := build(t, []string{filepath.Join("..", "..", "specs", "full.hcl")}, []config.VarArg{
		{Name: "scales", Value: `["xs", "m"]`}, {Name: "backends", Value: `["sqlite", "duckdb", "postgres"]`}})
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			for _, s := range c.Scenarios {
				for i, pt := range s.Points {
					e := s.PointEstimate(i)
					lo, hi := pt.Estimate()
					if e.Lo > e.Best || e.Best > e.Hi || e.Lo < lo || e.Hi > hi {
						t.Errorf("%s %s point %d: %v to %v around %v, outside its bounds %v to %v", c.Name(), s.Name, i, e.Lo, e.Hi, e.Best, lo, hi)
					}
					if float64(e.Hi) > 1.5*float64(e.Best)+1 || float64(e.Lo) < float64(e.Best)/1.5-1 {
						t.Errorf("%s %s point %d: %v to %v wider than 1.5x around %v", c.Name(), s.Name, i, e.Lo, e.Hi, e.Best)
					}
				}
			}
			le := c.LoadEstimate()
			drv, _ := drivers.Default.Lookup(c.Backend.Driver)
			cost := drv.(drivers.StoreEstimator).StoreCost()
			want := time.Duration(float64(sp.Stats.Datoms) * cost.SecondsPerDatom * float64(time.Second))
			if d := le.Best - want; d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("%s: load about %v, want %v from the driver's cost per datom", c.Name(), le.Best, want)
			}
		}
	}
	// The adaptive sampling: a rep typically stops well before max_s.
	pl := scenario(t, cell(t, p, "xs", "sqlite"), "point_lookup")
	if lo, hi := pl.Points[0].Estimate(); pl.Estimate().Best >= (lo+hi)/2 {
		t.Errorf("point_lookup about %v: not below the middle of %v to %v", pl.Estimate().Best, lo, hi)
	}
	// cold_warm: a restart per query (q1 and pull), not half its ceiling.
	if cw := scenario(t, cell(t, p, "xs", "sqlite"), "cold_vs_warm"); cw.Estimate().Best != 2*time.Second {
		t.Errorf("cold_vs_warm about %v, want 2s", cw.Estimate().Best)
	}
	// Fixed sampling (precision 0): a rep stops at min_s.
	m := build(t, []string{filepath.Join("testdata", "matrix.hcl")}, nil)
	lookup := scenario(t, cell(t, m, "xs", "lite"), "lookup")
	for i, pt := range lookup.Points {
		if lo, _ := pt.Estimate(); lookup.PointEstimate(i).Best != lo {
			t.Errorf("lookup point %d: about %v, want min_s's %v", i, lookup.PointEstimate(i).Best, lo)
		}
	}
}

// TestOffScenarios: a scenario that does not run in a cell is listed
// with why, not estimated.
func TestOffScenarios(t *testing.T) {
	tests := []struct {
		name    string
		paths   []string
		vars    []config.VarArg
		cell    [2]string
		off     string
		reason  string
		running bool // it runs in another cell
	}{
		{"declared for other backends", []string{filepath.Join("testdata", "matrix.hcl")}, nil, [2]string{"xs", "lite"}, "status", "not declared for this backend", true},
		{"not selected", []string{filepath.Join("..", "..", "specs", "full.hcl")},
			[]config.VarArg{{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite"]`}, {Name: "scenarios", Value: `["point_lookup"]`}},
			[2]string{"xs", "sqlite"}, "pull", "not selected", false},
		{"skipped by the backend", []string{filepath.Join("..", "..", "specs", "full.hcl")},
			[]config.VarArg{{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite"]`}, {Name: "embedded_skip_scenarios", Value: `["pull"]`}},
			[2]string{"xs", "sqlite"}, "pull", "skipped by this backend", false},
		{"another scale", []string{filepath.Join("..", "..", "specs", "full.hcl")},
			[]config.VarArg{{Name: "scales", Value: `["xs", "s"]`}, {Name: "backends", Value: `["sqlite"]`}},
			[2]string{"xs", "sqlite"}, "sustained", "not run at this scale", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := build(t, tt.paths, tt.vars)
			c := cell(t, p, tt.cell[0], tt.cell[1])
			for _, s := range c.Scenarios {
				if s.Name == tt.off {
					t.Fatalf("%s runs in %s", tt.off, c.Name())
				}
			}
			i := slices.IndexFunc(c.Off, func(o plan.OffScenario) bool { return o.Name == tt.off })
			if i < 0 || c.Off[i].Reason != tt.reason {
				t.Fatalf("off in %s: %+v, want %s: %s", c.Name(), c.Off, tt.off, tt.reason)
			}
			var b strings.Builder
			if err := p.Render(&b); err != nil {
				t.Fatal(err)
			}
			if line := "off: " + tt.off + " (" + c.Off[i].Kind + "): " + tt.reason; !strings.Contains(b.String(), line) {
				t.Errorf("the plan lacks %q:\n%s", line, b.String())
			}
		})
	}
}

// TestNoPointsIsOff: a scenario its kind gives no points (sustained with
// sustained_s = 0) is off, not "estimated 0s".
func TestNoPointsIsOff(t *testing.T) {
	p := build(t, []string{filepath.Join("..", "..", "specs", "full.hcl")}, []config.VarArg{
		{Name: "scales", Value: `["xs"]`}, {Name: "backends", Value: `["sqlite"]`}, {Name: "scenarios", Value: `["point_lookup", "sustained"]`}})
	if s := scenario(t, cell(t, p, "xs", "sqlite"), "sustained"); len(s.Points) != 0 {
		t.Fatalf("sustained has %d points with sustained_s = 0", len(s.Points))
	}
	var b strings.Builder
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	if text := b.String(); !strings.Contains(text, "2. sustained (sustained): off (no points as configured)\n") || strings.Contains(text, "estimated 0s") {
		t.Errorf("sustained not off:\n%s", text)
	}
}

// TestEstimateFromAnotherScale: a backend that did not load at a scale in
// the earlier run takes its load and store per datom from the scale
// nearest in datoms, with the model's wider range, and says so; one that
// loaded at the scale keeps its own.
func TestEstimateFromAnotherScale(t *testing.T) {
	p := build(t, []string{filepath.Join("testdata", "matrix.hcl")}, nil)
	h, err := plan.ReadHistory(filepath.Join("testdata", "history"))
	if err != nil {
		t.Fatal(err)
	}
	p.EstimateFrom(h)
	tests := []struct {
		scale, backend string
		measuredAt     string
		seconds        float64 // load, with its after-load steps, at measuredAt
		datoms         int64   // and its datoms there
		sizeBytes      int64
		spread         float64
	}{
		{"s", "lite", "xs", 0.8, 86214, 1000000, 1.5},   // extrapolated up
		{"xs", "duck", "s", 1.5, 2129773, 2000000, 1.5}, // and down
		{"xs", "lite", "xs", 0.8, 86214, 1000000, 1.25}, // its own
	}
	for _, tt := range tests {
		t.Run(tt.scale+"/"+tt.backend, func(t *testing.T) {
			c := cell(t, p, tt.scale, tt.backend)
			ratio := float64(c.Scale.Stats.Datoms) / float64(tt.datoms)
			e := c.LoadEstimate()
			want := time.Duration(tt.seconds * ratio * float64(time.Second))
			if d := e.Best - want; d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("load best %v, want %v", e.Best, want)
			}
			if lo := time.Duration(float64(e.Best) / tt.spread); e.Lo != lo {
				t.Errorf("load low %v, want %v (spread %.2f)", e.Lo, lo, tt.spread)
			}
			n, from := c.StoreEstimate()
			if wantN := int64(float64(tt.sizeBytes) / float64(tt.datoms) * float64(c.Scale.Stats.Datoms)); n < wantN-1 || n > wantN+1 {
				t.Errorf("store %d bytes, want %d", n, wantN)
			}
			if own := tt.measuredAt == tt.scale; own != (from == "as measured") || (!own && !strings.Contains(from, "measured at "+tt.measuredAt)) {
				t.Errorf("store estimate from %q, want measured at %s", from, tt.measuredAt)
			}
		})
	}
	var b strings.Builder
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(per datom as measured at xs)", "(per datom as measured at s)", "Stores: about "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, b.String())
		}
	}
}

// TestLoadSplit: the load's estimate splits into the datoms and the steps
// after them, by the earlier run's share where it measured the load, by
// the release suite's 85% otherwise; a backend without after-load steps
// has it all in the datoms.
func TestLoadSplit(t *testing.T) {
	p := build(t, []string{filepath.Join("testdata", "matrix.hcl")}, nil)
	c := cell(t, p, "xs", "lite")
	datoms, after := c.LoadSplit()
	if best := c.LoadEstimate().Best; datoms+after != best || after != time.Duration(0.85*float64(best)) {
		t.Errorf("model split %v + %v of %v, want 85%% after", datoms, after, best)
	}
	h, err := plan.ReadHistory(filepath.Join("testdata", "history"))
	if err != nil {
		t.Fatal(err)
	}
	p.EstimateFrom(h)
	// testdata/history: 0.5 s of datoms, 0.25 s after_load, 0.05 s analyze.
	datoms, after = c.LoadSplit()
	if datoms.Round(time.Millisecond) != 500*time.Millisecond || after.Round(time.Millisecond) != 300*time.Millisecond {
		t.Errorf("measured split %v + %v, want 500ms + 300ms", datoms, after)
	}
	if d, a := cell(t, p, "xs", "preloaded").LoadSplit(); d != 0 || a != 0 {
		t.Errorf("a backend without a load splits %v + %v", d, a)
	}
}
