// Package plan is the program a run executes, as a value: for each
// (scale, backend) cell the backend's configuration, every query's SQL for
// the driver's dialect with typed parameters, and each scenario's points
// as its kind expanded them, with their sampling. engine/planbuild makes
// a Plan from a decoded spec, through engine/resolve; a Plan holds no
// decoded spec, and the runner executes it and never reads HCL.
// The one part that waits for run time is the checks, whose expectations
// need the scale's truth: each scenario carries its checks prepared with
// their evaluation context (Checker), and Cell.Checks evaluates them
// against typed truth.
//
// Building a plan touches no database.
package plan

import (
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sampler"
	"github.com/mentat-spec/mentat-spec/engine/threshold"
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
	// SpecSampling is the spec's top-level sampling as written (seconds),
	// for plan's text; Sampling is it resolved.
	SpecSampling SamplingValues
	// Files are the text of the spec's HCL files by name, as parsed: a
	// check's source (CheckSources) is quoted from them.
	Files map[string][]byte
	// Secrets are the string values of the spec's sensitive variables
	// (SensitiveValues).
	Secrets []string

	history *History // EstimateFrom's, nil without
}

// SamplingValues are the measurement knobs as the spec writes them
// (durations in seconds, the order by name): what plan prints.
type SamplingValues struct {
	Warmup       int
	MinS         float64
	MinN         int
	MaxS         float64
	Reps         int
	ProbeS       float64
	CheckS       float64
	LoadMax      float64
	Precision    float64
	PrecisionP99 float64
	Order        string
	Evidence     bool
}

// Matrix names what runs.
type Matrix struct {
	Scales, Backends, Scenarios []string
}

// SamplingPlan is how a scenario's points are measured, resolved from
// SamplingValues (seconds as written) into durations: measure's
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
	// Plan is the plan the cell belongs to.
	Plan *Plan
	// StoreCost is the driver's cost per datom (nil: it states none).
	StoreCost *drivers.StoreCost

	// measuredLoad is the load an earlier run took (EstimateFrom), loadFrom
	// the scale it took it at when not this one (an extrapolation), and
	// measuredBytesPerDatom the store that load left.
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
	// SpecSampling is its sampling as written (seconds).
	SpecSampling SamplingValues
	// WorkersNote is what its kind says of where its clients run ("" when
	// it says nothing); InWorkers, that its points run their clients in
	// worker processes under a process client model.
	WorkersNote string
	InWorkers   bool
	// Checker holds its checks, prepared for the truth: its own, then
	// those it borrows.
	Checker *Checker

	// measured are the seconds of each point in an earlier run
	// (EstimateFrom), nil without.
	measured []time.Duration
}

// Input is a file a plan was made from: its absolute path and the
// SHA-256 (hex) of its content as it was read.
type Input struct {
	Path   string
	SHA256 string
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// Name is "scale/backend".
func (c *Cell) Name() string { return c.Scale.Name + "/" + c.Backend.Name }

// Drivers adapts a driver registry to what spec validation needs.
func Drivers(r *drivers.Registry) DriverSet { return registryDrivers{r} }

type registryDrivers struct{ r *drivers.Registry }

func (d registryDrivers) Driver(name string) (Driver, bool) {
	drv, ok := d.r.Lookup(name)
	if !ok {
		return nil, false
	}
	return drv, true
}

func (d registryDrivers) Names() []string { return d.r.Names() }
