// Package plan resolves a spec into the program a run executes: for each
// (scale, backend) cell the backend's configuration, every query's SQL for
// the driver's dialect with typed parameters, and each scenario's points
// as its kind expanded them, with their sampling. Everything HCL decides
// is evaluated here, once, through engine/resolve; the runner executes a
// Plan and never reads HCL.
// The one part that waits for run time is the checks, whose expectations
// need the scale's truth: Cell.Checks resolves them from typed truth.
//
// Building a plan touches no database.
package plan

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sampler"
	"github.com/mentat-spec/mentat-spec/engine/threshold"
	"github.com/zclconf/go-cty/cty"
)

// Plan is the resolved matrix in run order.
type Plan struct {
	Dataset   string
	Scales    []*ScalePlan
	Sampling  SamplingPlan    // the spec's top-level sampling
	Matrix    Matrix          // what was selected
	Env       []results.KV    // the spec's facts for env.txt (files, hash, variables, sampling)
	Sensitive map[string]bool // env keys whose values are secrets
	// Thresholds are the spec's absolute gates, judged by the runner on
	// each matching point's exact histogram.
	Thresholds []threshold.Spec
	// Inputs are the files the plan was made from, each as it was read:
	// the spec's files, -var-file files and what file() read.
	Inputs []Input

	spec     *config.Spec
	samplers []resolve.Sampler
	history  *History // EstimateFrom's, nil without
}

// Matrix names what runs.
type Matrix struct {
	Scales, Backends, Scenarios []string
}

// SamplingPlan is how a scenario's points are measured, resolved from
// config.SamplingValues (seconds as written) into durations: measure's
// sampling and the run's order and caps around it.
type SamplingPlan struct {
	measure.Sampling
	// Interleaved: the reps of this scenario's points may run apart, rep
	// 1 of every such point of the cell first (sampling order).
	Interleaved bool
	// Paired: the reps interleave across the backends of a scale too, rep
	// 1 of every such point of every cell of the scale first (order
	// "paired"), so that backends compared within one run share its drift.
	Paired  bool
	Check   time.Duration // per-call cap of a check; past it the check is a SKIP
	LoadMax time.Duration // bulk-load cap per cell

	// Evidence: the database's evidence and the latency split are
	// collected around each point (sampling evidence).
	Evidence bool
}

// ScalePlan is one scale: its generated dataset and the cells it runs on.
type ScalePlan struct {
	Name  string
	Gen   *datagen.Dataset
	Stats datagen.Stats
	// Estimated: Stats are scaled up from a sample (a large scale), so
	// planning stays quick; the runner counts exactly before it loads.
	Estimated bool
	Marks     map[string]int64
	// Writes are the dataset's write generators (nil without write blocks).
	Writes *writes.Writes
	Cells  []*Cell

	scale *config.Scale
}

// Cell is one (scale, backend) cell.
type Cell struct {
	Scale     *ScalePlan
	Backend   Backend
	Queries   map[string]*Query
	Scenarios []*Scenario
	// Off are the spec's scenarios that do not run in this cell, in the
	// spec's order, each with why.
	Off []OffScenario

	plan *Plan
	cell config.Cell
	// storeCost is the driver's cost per datom (nil: it states none);
	// measuredLoad the load an earlier run took (EstimateFrom), loadFrom
	// the scale it took it at when not this one (an extrapolation), and
	// measuredBytesPerDatom the store that load left.
	storeCost             *drivers.StoreCost
	measuredLoad          time.Duration
	loadFrom              string
	measuredBytesPerDatom float64
	measuredAfterShare    float64 // of the measured load, its after-load steps
}

// OffScenario is a scenario that does not run in a cell.
type OffScenario struct {
	Name, Kind string
	Reason     string // "not selected", "skipped by this backend", ...
}

// Backend is a cell's backend as resolution made it, and Load its load
// block: the runner reads both from a Cell.
type (
	Backend = resolve.CellBackend
	Load    = resolve.Load
)

// Query is a query's SQL for the cell's dialect and its parameters. A
// parameter the query leaves to its checks is absent from Params.
type Query struct {
	Name   string
	SQL    string // with :name markers
	Params map[string]params.Spec
	// Answer is "rows" or a one-value format ("json", "edn") the checks
	// decode; Columns names its tuples' positions.
	Answer  string
	Columns []string
	// EDN is the query's `edn` text (the Datalog of a mentat deployment),
	// bound as :q in the backend's explain statement instead of SQL.
	EDN string
}

// Scenario is one scenario in one cell.
type Scenario struct {
	Name        string
	Kind        string
	Description string
	Sampling    SamplingPlan
	Queries     []string // the queries its points run
	Writes      bool     // running it changes the store
	During      bool     // a check of it also runs while it runs (during_ms): it runs alone
	Points      []kind.Point
	CheckNames  []string
	Samplers    []sampler.Spec // run alongside the points
	// WritesNote says how the scenario's write operations reach the
	// database ("" when it has none).
	WritesNote string
	// Unchecked are the queries it runs that no check reads, its own or
	// another scenario's: their answers go unverified, and plan says so.
	Unchecked []string

	def *config.ScenarioBlock
	// borrowed are the checks other scenarios declare for the queries
	// this one runs and checks not: a fast wrong answer must not look like
	// a win where nobody checks it (the sweep at 128 clients).
	borrowed []borrowedCheck
	// measured are the seconds of each point in an earlier run
	// (EstimateFrom), nil without.
	measured []time.Duration
}

// borrowedCheck is a check another scenario declares.
type borrowedCheck struct {
	check *config.CheckBlock
	from  string
}

// Client models of a backend.
const (
	ClientsGoroutine = resolve.ClientsGoroutine // every client a goroutine of this process
	ClientsProcess   = resolve.ClientsProcess   // one worker process per client
	ClientsProcesses = resolve.ClientsProcesses // Processes worker processes share the clients
)

// Build resolves the selected matrix of spec. drv gives each backend's
// dialect; workers bounds the parallelism of dataset counting.
func Build(ctx context.Context, spec *config.Spec, drv resolve.Drivers, workers int) (*Plan, hcl.Diagnostics) {
	p := &Plan{spec: spec, Dataset: spec.Matrix.DatasetName, Sampling: toSampling(spec.Sampling.Values),
		Matrix: Matrix{Scales: spec.Matrix.ScaleNames, Backends: spec.Matrix.BackendNames, Scenarios: spec.Matrix.ScenarioNames}}
	ds := spec.SelectedDataset()
	if ds == nil {
		return p, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No dataset", Detail: "The spec declares no dataset to run."}}
	}
	samplers, diags := resolve.Samplers(spec)
	p.samplers = samplers
	thresholds, d := resolve.Thresholds(spec)
	diags = append(diags, d...)
	p.Thresholds = thresholds
	for _, sn := range spec.Matrix.ScaleNames {
		sc := spec.Scale(sn)
		gen, d := resolve.Dataset(ds, spec.ScaleContext(sc))
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		stats, exact, err := gen.EstimateStats(ctx, workers)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot size the dataset",
				Detail: fmt.Sprintf("scale %q: %s", sn, err)})
			continue
		}
		writes, d := resolve.Writes(ds, spec.ScaleContext(sc), gen)
		diags = append(diags, d...)
		sp := &ScalePlan{Name: sn, Gen: gen, Stats: stats, Estimated: !exact, Marks: gen.MarkTxs(), Writes: writes, scale: sc}
		for _, bn := range spec.Matrix.BackendNames {
			c, d := p.resolveCell(sp, spec.Backend(bn), drv)
			diags = append(diags, d...)
			if c != nil {
				sp.Cells = append(sp.Cells, c)
			}
		}
		p.Scales = append(p.Scales, sp)
	}
	p.Env, p.Sensitive = specEnv(spec, p)
	p.Inputs = spec.Inputs() // after resolution, which may call file()
	return p, diags
}

// Input is a file a plan was made from, as it was read.
type Input = config.Input

func (p *Plan) resolveCell(sp *ScalePlan, be *config.BackendBlock, drv resolve.Drivers) (*Cell, hcl.Diagnostics) {
	spec := p.spec
	cc := config.Cell{Scale: sp.scale, Backend: be}
	ctx := spec.CellContext(cc, cty.NilVal)
	bc, diags := resolve.Backend(be, ctx, resolve.Dialect(drv, be))
	if diags.HasErrors() {
		return nil, diags
	}
	c := &Cell{Scale: sp, plan: p, cell: cc, Queries: map[string]*Query{}, Backend: *bc, storeCost: storeCost(drv, bc.Driver)}
	for _, q := range spec.Queries {
		rq, d := resolve.Query(q, ctx, bc.Dialect)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		pq := &Query{Name: q.Name, SQL: rq.SQL, Params: map[string]params.Spec{}, Answer: rq.Answer, Columns: rq.Columns, EDN: rq.EDN}
		for name, v := range rq.Params {
			ps, err := resolve.ParamSpec(v)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid query parameter",
					Detail: fmt.Sprintf("query %q param %q: %s", q.Name, name, err), Subject: rq.Range.Ptr()})
				continue
			}
			pq.Params[name] = ps
		}
		c.Queries[q.Name] = pq
	}
	diags = append(diags, resolve.CheckSkips(spec, be, bc)...)
	for _, sd := range spec.Scenarios {
		if sd.Def == nil {
			continue // its kind reported why
		}
		if why := offReason(spec, sd, be.Name, bc.SkipScenarios, sp.Name); why != "" {
			c.Off = append(c.Off, OffScenario{Name: sd.Name, Kind: sd.Kind.Name(), Reason: why})
		}
	}
	for _, sd := range spec.SelectedScenarios() {
		if sd.Def == nil || offReason(spec, sd, be.Name, bc.SkipScenarios, sp.Name) != "" {
			continue
		}
		samp := toSampling(sd.Sampling)
		s := &Scenario{Name: sd.Name, Kind: sd.Kind.Name(), Description: sd.Description, Sampling: samp,
			Queries: sd.Def.Queries(), Writes: sd.Def.Writes(), Points: sd.Def.Points(samp.Sampling), def: sd,
			Samplers: samplersFor(p.samplers, sd, be.Name)}
		for _, ck := range sd.Checks {
			s.CheckNames = append(s.CheckNames, ck.Name)
			if _, ok := ck.Attrs["during_ms"]; ok {
				s.During = true
			}
		}
		s.borrowed, s.Unchecked = borrowChecks(spec, sd, be.Name)
		for _, bc := range s.borrowed {
			s.CheckNames = append(s.CheckNames, bc.name())
		}
		diags = append(diags, resolve.WriteGenerators(sp.Writes, sd)...)
		diags = append(diags, resolve.DuringChecks(sd)...)
		diags = append(diags, resolve.TxReads(sp.Writes, sd)...)
		diags = append(diags, resolve.ReadersSeeWrites(drv, bc.Driver, bc.Name, bc.Options, sd)...)
		s.WritesNote = writesNote(drv, bc.Driver, bc.Options, sd)
		c.Scenarios = append(c.Scenarios, s)
	}
	return c, diags
}

// offReason says why scenario sd does not run on backend at scale, ""
// when it runs.
func offReason(spec *config.Spec, sd *config.ScenarioBlock, backend string, skip []string, scale string) string {
	switch {
	case !slices.Contains(spec.Matrix.ScenarioNames, sd.Name):
		return "not selected"
	case !sd.RunsOn(backend):
		return "not declared for this backend"
	case slices.Contains(skip, sd.Name):
		return "skipped by this backend"
	}
	if f, ok := sd.Def.(kind.ScaleFilter); ok && !f.RunsOnScale(scale) {
		return "not run at this scale"
	}
	return ""
}

// borrowChecks finds, for each query sd runs that none of its checks
// reads, the checks other read-only scenarios on the backend declare for
// it, or, when none does, the checks scenarios that write declare for it
// (they compare with the truth the writes advance, which is the truth
// when the borrowed check runs), so a query a check reads anywhere is
// never called unchecked. A scenario that writes borrows nothing and is
// not marked: its statements include writes, which the checks after them
// verify through that truth.
func borrowChecks(spec *config.Spec, sd *config.ScenarioBlock, backend string) (borrowed []borrowedCheck, unchecked []string) {
	if sd.Def.Writes() {
		return nil, nil
	}
	covered := map[string]bool{}
	for _, ck := range sd.Checks {
		covered[ck.Query] = true
	}
	from := func(q string, writers bool) []borrowedCheck {
		var out []borrowedCheck
		for _, other := range spec.Scenarios {
			if other == sd || other.Def == nil || other.Def.Writes() != writers || !other.RunsOn(backend) {
				continue
			}
			for _, ck := range other.Checks {
				if ck.Query == q {
					out = append(out, borrowedCheck{check: ck, from: other.Name})
				}
			}
		}
		return out
	}
	for _, q := range sd.Def.Queries() {
		if covered[q] {
			continue
		}
		covered[q] = true
		found := from(q, false)
		if len(found) == 0 {
			found = from(q, true)
		}
		if len(found) == 0 {
			unchecked = append(unchecked, q)
		}
		borrowed = append(borrowed, found...)
	}
	return borrowed, unchecked
}

// name is the borrowed check's name in checks.txt: its own, with where
// it is declared.
func (b borrowedCheck) name() string { return b.check.Name + " (from " + b.from + ")" }

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

func toSampling(v config.SamplingValues) SamplingPlan {
	return SamplingPlan{
		Sampling: measure.Sampling{Warmup: v.Warmup, MinDuration: secs(v.MinS), MinSamples: v.MinN,
			MaxDuration: secs(v.MaxS), Reps: v.Reps, Probe: secs(v.ProbeS),
			Precision: v.Precision, PrecisionP99: v.PrecisionP99},
		Check: secs(v.CheckS), LoadMax: secs(v.LoadMax), Interleaved: v.Order != config.OrderSequential, Paired: v.Order == config.OrderPaired,
		Evidence: v.Evidence,
	}
}

// Name is "scale/backend".
func (c *Cell) Name() string { return c.Scale.Name + "/" + c.Backend.Name }

// Drivers adapts a driver registry to what spec validation needs.
func Drivers(r *drivers.Registry) resolve.Drivers { return registryDrivers{r} }

type registryDrivers struct{ r *drivers.Registry }

func (d registryDrivers) Driver(name string) (resolve.Driver, bool) {
	drv, ok := d.r.Lookup(name)
	if !ok {
		return nil, false
	}
	return drv, true
}

func (d registryDrivers) Names() []string { return d.r.Names() }
