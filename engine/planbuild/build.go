// Package planbuild makes a plan.Plan from a decoded spec: it reads the
// spec (engine/config) once, has engine/resolve evaluate each block for
// each cell, and copies into the plan everything a run and plan's text
// need later, so that the plan holds no decoded spec. The path of a spec
// value reads top-down: Build, its scales, each cell, each scenario.
package planbuild

import (
	"context"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

// Build resolves the selected matrix of spec. drv gives each backend's
// dialect; workers bounds the parallelism of dataset counting.
func Build(ctx context.Context, spec *config.Spec, drv resolve.Drivers, workers int) (*plan.Plan, hcl.Diagnostics) {
	p := &plan.Plan{Dataset: spec.Matrix.DatasetName, Sampling: toSampling(spec.Sampling.Values),
		SpecSampling: plan.SamplingValues(spec.Sampling.Values), Files: specFiles(spec), Secrets: secrets(spec),
		Matrix: plan.Matrix{Scales: spec.Matrix.ScaleNames, Backends: spec.Matrix.BackendNames, Scenarios: spec.Matrix.ScenarioNames}}
	ds := spec.SelectedDataset()
	if ds == nil {
		return p, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No dataset", Detail: "The spec declares no dataset to run."}}
	}
	b := &builder{spec: spec, drv: drv, plan: p}
	samplers, diags := resolve.Samplers(spec)
	b.samplers = samplers
	thresholds, d := resolve.Thresholds(spec)
	diags = append(diags, d...)
	p.Thresholds = thresholds
	for _, sn := range spec.Matrix.ScaleNames {
		sp, d := b.scale(ctx, ds, spec.Scale(sn), workers)
		diags = append(diags, d...)
		if sp != nil {
			p.Scales = append(p.Scales, sp)
		}
	}
	p.Env, p.Sensitive = specEnv(spec, p)
	p.Inputs = inputs(spec) // after resolution, which may call file()
	return p, diags
}

// builder carries what every cell of one Build reads.
type builder struct {
	spec     *config.Spec
	drv      resolve.Drivers
	plan     *plan.Plan
	samplers []resolve.Sampler
}

// scale resolves the dataset at scale sc, sizes it, and resolves the
// scale's cells; nil when the dataset cannot be made.
func (b *builder) scale(ctx context.Context, ds *config.DatasetBlock, sc *config.Scale, workers int) (*plan.ScalePlan, hcl.Diagnostics) {
	sctx := b.spec.ScaleContext(sc)
	gen, diags := resolve.Dataset(ds, sctx)
	if diags.HasErrors() {
		return nil, diags
	}
	stats, exact, err := gen.EstimateStats(ctx, workers)
	if err != nil {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot size the dataset",
			Detail: fmt.Sprintf("scale %q: %s", sc.Name, err)})
	}
	writes, d := resolve.Writes(ds, sctx, gen)
	diags = append(diags, d...)
	sp := &plan.ScalePlan{Name: sc.Name, Gen: gen, Stats: stats, Estimated: !exact, Marks: gen.MarkTxs(), Writes: writes}
	for _, bn := range b.spec.Matrix.BackendNames {
		c, d := b.cell(sp, config.Cell{Scale: sc, Backend: b.spec.Backend(bn)})
		diags = append(diags, d...)
		if c != nil {
			sp.Cells = append(sp.Cells, c)
		}
	}
	return sp, diags
}

// cell resolves one (scale, backend) cell whole: its backend, its
// queries, and each scenario that runs in it with its checks prepared in
// the cell's context.
func (b *builder) cell(sp *plan.ScalePlan, cc config.Cell) (*plan.Cell, hcl.Diagnostics) {
	be := cc.Backend
	dialect := resolve.Dialect(b.drv, be)
	ctx := b.spec.CellContext(cc, cty.NilVal)
	bc, diags := resolve.Backend(be, ctx, dialect)
	if diags.HasErrors() {
		return nil, diags
	}
	driver, _ := b.drv.Driver(bc.Driver)
	c := &plan.Cell{Scale: sp, Plan: b.plan, Queries: map[string]*plan.Query{}, Backend: *bc, StoreCost: storeCost(driver)}
	for _, q := range b.spec.Queries {
		pq, d := query(q, ctx, bc.Dialect)
		diags = append(diags, d...)
		if pq != nil {
			c.Queries[q.Name] = pq
		}
	}
	diags = append(diags, resolve.CheckSkips(b.spec, be, bc)...)
	off := map[*config.ScenarioBlock]string{}
	for _, sd := range b.spec.Scenarios {
		if sd.Def == nil {
			continue // its kind reported why
		}
		if why := offReason(b.spec, sd, be.Name, bc.SkipScenarios, sp.Name); why != "" {
			off[sd] = why
			c.Off = append(c.Off, plan.OffScenario{Name: sd.Name, Kind: sd.Kind.Name(), Reason: why})
		}
	}
	for _, sd := range b.spec.SelectedScenarios() {
		if sd.Def == nil || off[sd] != "" {
			continue
		}
		s, d := b.scenario(sp, bc, driver, sd, ctx)
		diags = append(diags, d...)
		c.Scenarios = append(c.Scenarios, s)
	}
	return c, diags
}

// query resolves a query's SQL for dialect and its parameters' types;
// nil when it cannot be resolved.
func query(q *config.QueryBlock, ctx *hcl.EvalContext, dialect string) (*plan.Query, hcl.Diagnostics) {
	rq, diags := resolve.Query(q, ctx, dialect)
	if diags.HasErrors() {
		return nil, diags
	}
	pq := &plan.Query{Name: q.Name, SQL: rq.SQL, Params: map[string]params.Spec{}, Answer: rq.Answer, Columns: rq.Columns, EDN: rq.EDN}
	for name, v := range rq.Params {
		ps, err := resolve.ParamSpec(v)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid query parameter",
				Detail: fmt.Sprintf("query %q param %q: %s", q.Name, name, err), Subject: rq.Range.Ptr()})
			continue
		}
		pq.Params[name] = ps
	}
	return pq, diags
}

// scenario resolves scenario sd in a cell of backend bc (driver is its
// driver, nil when unknown) at scale sp: its
// points, samplers, how its writes reach the database, and its checks
// (its own and those it borrows) prepared in ctx, the cell's context.
func (b *builder) scenario(sp *plan.ScalePlan, bc *resolve.CellBackend, driver resolve.Driver, sd *config.ScenarioBlock, ctx *hcl.EvalContext) (*plan.Scenario, hcl.Diagnostics) {
	samp := toSampling(sd.Sampling)
	s := &plan.Scenario{Name: sd.Name, Kind: sd.Kind.Name(), Description: sd.Description, Sampling: samp,
		Queries: sd.Def.Queries(), Writes: sd.Def.Writes(), Points: sd.Def.Points(samp.Sampling),
		Samplers: samplersFor(b.samplers, sd, bc.Name), SpecSampling: plan.SamplingValues(sd.Sampling)}
	if n, ok := sd.Def.(kind.WorkerNoter); ok {
		s.WorkersNote = n.WorkersNote()
	}
	if wr, ok := sd.Def.(kind.WorkerRunner); ok {
		s.InWorkers = wr.RunsInWorkers()
	}
	s.Checker = &plan.Checker{Context: ctx}
	for _, ck := range sd.Checks {
		s.Checker.Checks = append(s.Checker.Checks, plan.CheckDef{Name: ck.Name, Query: ck.Query, Attrs: ck.Attrs})
		if _, ok := ck.Attrs["during_ms"]; ok {
			s.During = true
		}
	}
	var borrowed []plan.CheckDef
	borrowed, s.Unchecked = borrowChecks(b.spec, sd, bc.Name)
	s.Checker.Checks = append(s.Checker.Checks, borrowed...)
	for _, ck := range s.Checker.Checks {
		s.CheckNames = append(s.CheckNames, ck.Label())
	}
	diags := resolve.WriteGenerators(sp.Writes, sd)
	diags = append(diags, resolve.DuringChecks(sd)...)
	diags = append(diags, resolve.TxReads(sp.Writes, sd)...)
	diags = append(diags, resolve.ReadersSeeWrites(b.drv, bc.Driver, bc.Name, bc.Options, sd)...)
	s.WritesNote = writesNote(driver, bc.Driver, bc.Options, sd)
	return s, diags
}
