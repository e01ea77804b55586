package config

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

type topValues struct {
	vars   cty.Value
	locals cty.Value
	fns    map[string]function.Function
}

// evaluateTop assigns variables and evaluates locals.
func (s *Spec) evaluateTop(args []VarArg) hcl.Diagnostics {
	s.values = &topValues{fns: s.functions(), vars: cty.EmptyObjectVal, locals: cty.EmptyObjectVal}
	diags := s.assignVariables(args)
	diags = append(diags, s.registerSensitive()...)
	vars := map[string]cty.Value{}
	for _, v := range s.Variables {
		vars[v.Name] = v.Value
	}
	s.values.vars = cty.ObjectVal(vars)
	if diags.HasErrors() {
		return diags
	}
	if diags = s.validateVariables(); diags.HasErrors() {
		return diags
	}
	return s.evaluateLocals()
}

// baseContext holds var, local and every function; extra adds cell
// variables (scale, backend, truth, each).
func (s *Spec) baseContext(extra map[string]cty.Value) *hcl.EvalContext {
	if s.values == nil {
		s.values = &topValues{fns: s.functions(), vars: cty.EmptyObjectVal, locals: cty.EmptyObjectVal}
	}
	locals := map[string]cty.Value{}
	for _, l := range s.Locals {
		if l.Value != cty.NilVal {
			locals[l.Name] = l.Value
		}
	}
	// A scale's own values of the locals that read scale.*.
	if sv, ok := extra["scale"]; ok && sv.IsKnown() && !sv.IsNull() && sv.Type().IsObjectType() && sv.Type().HasAttribute("name") {
		for n, v := range s.scaleLocals[sv.GetAttr("name").AsString()] {
			locals[n] = v
		}
	}
	vars := map[string]cty.Value{"var": s.values.vars, "local": cty.ObjectVal(locals), "query": s.queryObject()}
	for k, v := range extra {
		vars[k] = v
	}
	return &hcl.EvalContext{Variables: vars, Functions: s.values.fns}
}

// TopContext is the evaluation context of values that do not depend on a
// matrix cell.
func (s *Spec) TopContext() *hcl.EvalContext { return s.baseContext(nil) }

// Cell is one (scale, backend) point of the matrix.
type Cell struct {
	Scale   *Scale
	Backend *BackendBlock
}

// ScaleContext evaluates expressions of one scale (datasets).
func (s *Spec) ScaleContext(sc *Scale) *hcl.EvalContext {
	return s.baseContext(map[string]cty.Value{"scale": sc.Object()})
}

// CellContext evaluates expressions of one cell (backends, queries,
// scenarios). truth may be cty.NilVal when not known yet.
func (s *Spec) CellContext(c Cell, truth cty.Value) *hcl.EvalContext {
	extra := map[string]cty.Value{"scale": c.Scale.Object(), "backend": c.Backend.Object()}
	if truth != cty.NilVal {
		extra["truth"] = truth
	}
	return s.baseContext(extra)
}

// SamplingBlock is the `sampling {}` block as decoded: its body, and Values
// once evaluated (how each point is measured, in the spec's units).
type SamplingBlock struct {
	Body      hcl.Body
	DeclRange hcl.Range
	Values    SamplingValues
}

// SamplingValues are the measurement knobs. Durations are seconds.
type SamplingValues struct {
	Warmup  int
	MinS    float64
	MinN    int
	MaxS    float64
	Reps    int
	ProbeS  float64
	CheckS  float64 // per-call cap of a check; past it the check is a SKIP
	LoadMax float64 // bulk-load cap per (scale, backend), seconds
	// Precision stops a rep once its p50 is known within this fraction at
	// 95% confidence (between min_s/min_n and max_s); 0 is the seed suite's
	// fixed method. PrecisionP99 also waits for p99.
	Precision    float64
	PrecisionP99 float64
	// Order is when a point's reps run: OrderInterleaved (rep 1 of every
	// point of a cell, then rep 2, ...), OrderPaired (rep 1 of every point
	// of every backend of a scale, then rep 2: backends compared within
	// one run see the same drift) or OrderSequential (each point's reps
	// back to back, the seed suite's order).
	Order string
	// Evidence collects, around each point, what the database's own
	// instruments say it did and where the latency went (evidence.csv,
	// latency-split.csv); false measures without it.
	Evidence bool
}

// Orders of the reps (SamplingValues.Order).
const (
	OrderInterleaved = "interleaved"
	OrderPaired      = "paired"
	OrderSequential  = "sequential"
)

// DefaultSampling is the seed suite's methodology, with reps interleaved
// so that they sample the run's drift.
var DefaultSampling = SamplingValues{Warmup: 3, MinS: 10, MinN: 30, MaxS: 60, Reps: 3, ProbeS: 20, CheckS: 120, LoadMax: 5400, Order: OrderInterleaved, Evidence: true}

var samplingSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "warmup"}, {Name: "min_s"}, {Name: "min_n"}, {Name: "max_s"}, {Name: "reps"},
	{Name: "probe_s"}, {Name: "check_s"}, {Name: "load_max_s"}, {Name: "precision"}, {Name: "precision_p99"}, {Name: "order"},
	{Name: "evidence"},
}}

// decodeSampling applies a sampling body over base.
func decodeSampling(body hcl.Body, ctx *hcl.EvalContext, base SamplingValues) (SamplingValues, hcl.Diagnostics) {
	content, diags := body.Content(samplingSchema)
	out := base
	ints := map[string]*int{"warmup": &out.Warmup, "min_n": &out.MinN, "reps": &out.Reps}
	floats := map[string]*float64{"min_s": &out.MinS, "max_s": &out.MaxS, "probe_s": &out.ProbeS, "check_s": &out.CheckS, "load_max_s": &out.LoadMax,
		"precision": &out.Precision, "precision_p99": &out.PrecisionP99}
	for name, a := range content.Attributes {
		if name == "order" {
			o, d := evalOrder(a.Expr, ctx)
			diags = append(diags, d...)
			if !d.HasErrors() {
				out.Order = o
			}
			continue
		}
		if name == "evidence" {
			v, d := hcleval.Bool(a.Expr, ctx, name)
			diags = append(diags, d...)
			if !d.HasErrors() {
				out.Evidence = v
			}
			continue
		}
		f, d := hcleval.Number(a.Expr, ctx, name)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if f < 0 {
			diags = append(diags, hcleval.AttrError(a.Expr, "Invalid sampling value", fmt.Sprintf("%s must not be negative.", name)))
			continue
		}
		if ip, ok := ints[name]; ok {
			if f != math.Trunc(f) {
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid sampling value", fmt.Sprintf("%s must be a whole number.", name)))
				continue
			}
			*ip = int(f)
		} else {
			*floats[name] = f
		}
	}
	if out.Reps < 1 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid sampling value", Detail: "reps must be at least 1.", Subject: body.MissingItemRange().Ptr()})
	}
	if a, ok := content.Attributes["precision_p99"]; ok && out.PrecisionP99 > 0 && out.Precision == 0 {
		diags = append(diags, hcleval.AttrError(a.Expr, "Invalid sampling value", "precision_p99 needs precision: adaptive stopping waits for p50 first (set precision = 0.05, say)."))
	}
	for _, n := range []string{"precision", "precision_p99"} {
		if a, ok := content.Attributes[n]; ok && *floats[n] >= 1 {
			diags = append(diags, hcleval.AttrError(a.Expr, "Invalid sampling value", n+" is a fraction of the value (0.05 is 5%), below 1."))
		}
	}
	if out.MaxS < out.MinS {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid sampling value",
			Detail: fmt.Sprintf("max_s (%v) is below min_s (%v).", out.MaxS, out.MinS), Subject: body.MissingItemRange().Ptr()})
	}
	return out, diags
}

// evalOrder reads a sampling block's order.
func evalOrder(expr hcl.Expression, ctx *hcl.EvalContext) (string, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return "", diags
	}
	v, err := convert.Convert(v, cty.String)
	if err != nil || v.IsNull() || !v.IsKnown() {
		return "", hcl.Diagnostics{hcleval.AttrError(expr, "Incorrect attribute value type", "order must be a string.")}
	}
	switch o := v.AsString(); o {
	case OrderInterleaved, OrderPaired, OrderSequential:
		return o, nil
	default:
		return "", hcl.Diagnostics{hcleval.AttrError(expr, "Invalid sampling value",
			fmt.Sprintf("order is %q, %q or %q, not %q.", OrderInterleaved, OrderPaired, OrderSequential, o))}
	}
}

// Matrix is the `matrix {}` block: which scales, backends and scenarios
// run, in order. Without it, every declared one runs.
type Matrix struct {
	Scales    hcl.Expression
	Backends  hcl.Expression
	Scenarios hcl.Expression
	Dataset   hcl.Expression
	DeclRange hcl.Range

	ScaleNames    []string
	BackendNames  []string
	ScenarioNames []string
	DatasetName   string
}

var matrixSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "scales"}, {Name: "backends"}, {Name: "scenarios"}, {Name: "dataset"},
}}

func decodeMatrixBlock(b *hcl.Block) (*Matrix, hcl.Diagnostics) {
	content, diags := b.Body.Content(matrixSchema)
	m := &Matrix{DeclRange: b.DefRange}
	get := func(n string) hcl.Expression {
		if a, ok := content.Attributes[n]; ok {
			return a.Expr
		}
		return nil
	}
	m.Scales, m.Backends, m.Scenarios, m.Dataset = get("scales"), get("backends"), get("scenarios"), get("dataset")
	return m, diags
}

// Scale is a `scale "name" {}` block: named sizes that datasets and
// backends read as scale.<attr>.
type Scale struct {
	Name      string
	Attrs     map[string]hcl.Expression
	DeclRange hcl.Range
	values    map[string]cty.Value
}

func decodeScaleBlock(b *hcl.Block) (*Scale, hcl.Diagnostics) {
	sc := &Scale{Name: b.Labels[0], DeclRange: b.DefRange, Attrs: map[string]hcl.Expression{}}
	diags := checkName("scale", sc.Name, b.LabelRanges[0])
	attrs, d := b.Body.JustAttributes()
	diags = append(diags, d...)
	for n, a := range attrs {
		if n == "name" {
			diags = append(diags, hcleval.AttrError(a.Expr, "Reserved scale attribute", `"name" is the block's label; scale.name is set from it.`))
			continue
		}
		sc.Attrs[n] = a.Expr
	}
	return sc, diags
}

// Object is scale.* as seen by expressions.
func (sc *Scale) Object() cty.Value {
	m := map[string]cty.Value{"name": cty.StringVal(sc.Name)}
	for k, v := range sc.values {
		m[k] = v
	}
	return cty.ObjectVal(m)
}

// Value returns a scale attribute's value.
func (sc *Scale) Value(name string) (cty.Value, bool) {
	v, ok := sc.values[name]
	return v, ok
}

// decodeTopLevelValues evaluates what depends only on var and local:
// sampling, scales and the matrix.
func (s *Spec) decodeTopLevelValues() hcl.Diagnostics {
	ctx := s.TopContext()
	var diags hcl.Diagnostics
	if s.Sampling == nil {
		s.Sampling = &SamplingBlock{Values: DefaultSampling}
	} else {
		v, d := decodeSampling(s.Sampling.Body, ctx, DefaultSampling)
		diags = append(diags, d...)
		s.Sampling.Values = v
	}
	for _, sc := range s.Scales {
		sc.values = map[string]cty.Value{}
		names := make([]string, 0, len(sc.Attrs))
		for n := range sc.Attrs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			v, d := sc.Attrs[n].Value(ctx)
			diags = append(diags, d...)
			sc.values[n] = v
		}
	}
	diags = append(diags, s.evaluateScaleLocals()...)
	for _, sc := range s.Scenarios {
		diags = append(diags, sc.decodeTop(s, ctx)...)
	}
	diags = append(diags, s.decodeMatrix(ctx)...)
	return diags
}

func (s *Spec) decodeMatrix(ctx *hcl.EvalContext) hcl.Diagnostics {
	m := s.Matrix
	if m == nil {
		m = &Matrix{}
		s.Matrix = m
	}
	var diags hcl.Diagnostics
	pick := func(expr hcl.Expression, what string, all []string, exists func(string) bool) []string {
		if expr == nil {
			return all
		}
		if v, d := expr.Value(ctx); !d.HasErrors() && v.IsNull() {
			return all // a variable left at null selects everything
		}
		names, d := hcleval.StringList(expr, ctx, what)
		diags = append(diags, d...)
		seen := map[string]bool{}
		for _, n := range names {
			if !exists(n) {
				diags = append(diags, hcleval.AttrError(expr, "Unknown "+what[:len(what)-1],
					fmt.Sprintf("matrix.%s names %q, which is not declared. Declared: %v.", what, n, all)))
			}
			if seen[n] {
				diags = append(diags, hcleval.AttrError(expr, "Duplicate "+what[:len(what)-1], fmt.Sprintf("matrix.%s names %q twice.", what, n)))
			}
			seen[n] = true
		}
		if len(names) == 0 && !d.HasErrors() {
			// An empty selection would validate and run nothing, exit 0.
			diags = append(diags, hcleval.AttrError(expr, "Nothing selected",
				fmt.Sprintf("matrix.%s selects no %s, so the run would measure nothing. Declared: %v.", what, what[:len(what)-1], all)))
		}
		return names
	}
	var scales, backends, scenarios, datasets []string
	for _, x := range s.Scales {
		scales = append(scales, x.Name)
	}
	for _, x := range s.Backends {
		backends = append(backends, x.Name)
	}
	for _, x := range s.Scenarios {
		scenarios = append(scenarios, x.Name)
	}
	for _, x := range s.Datasets {
		datasets = append(datasets, x.Name)
	}
	m.ScaleNames = pick(m.Scales, "scales", scales, func(n string) bool { return s.Scale(n) != nil })
	m.BackendNames = pick(m.Backends, "backends", backends, func(n string) bool { return s.Backend(n) != nil })
	m.ScenarioNames = pick(m.Scenarios, "scenarios", scenarios, func(n string) bool { return s.Scenario(n) != nil })
	switch {
	case m.Dataset != nil:
		n, d := hcleval.String(m.Dataset, ctx, "dataset")
		diags = append(diags, d...)
		if !d.HasErrors() && s.Dataset(n) == nil {
			diags = append(diags, hcleval.AttrError(m.Dataset, "Unknown dataset", fmt.Sprintf("No dataset %q is declared. Declared: %v.", n, datasets)))
		}
		m.DatasetName = n
	case len(s.Datasets) == 1:
		m.DatasetName = s.Datasets[0].Name
	case len(s.Datasets) > 1:
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Which dataset?",
			Detail: fmt.Sprintf("The spec declares several datasets (%v): set matrix.dataset.", datasets), Subject: s.Datasets[1].DeclRange.Ptr()})
	}
	return diags
}

// Scenario returns the scenario declared with name, or nil.
func (s *Spec) Scenario(name string) *ScenarioBlock {
	for _, sc := range s.Scenarios {
		if sc.Name == name {
			return sc
		}
	}
	return nil
}

// Cells lists the matrix in run order: scales outer, backends inner.
func (s *Spec) Cells() []Cell {
	var cells []Cell
	for _, sn := range s.Matrix.ScaleNames {
		for _, bn := range s.Matrix.BackendNames {
			cells = append(cells, Cell{Scale: s.Scale(sn), Backend: s.Backend(bn)})
		}
	}
	return cells
}

// SelectedScenarios lists the scenarios that run, in matrix order.
func (s *Spec) SelectedScenarios() []*ScenarioBlock {
	var out []*ScenarioBlock
	for _, n := range s.Matrix.ScenarioNames {
		out = append(out, s.Scenario(n))
	}
	return out
}

// SelectedDataset is the dataset the matrix runs.
func (s *Spec) SelectedDataset() *DatasetBlock { return s.Dataset(s.Matrix.DatasetName) }

// evaluateScaleLocals evaluates the locals that read scale.* once per
// declared scale, in dependency order, so that datasets, backends,
// queries and checks of a cell see the scale's values.
func (s *Spec) evaluateScaleLocals() hcl.Diagnostics {
	var diags hcl.Diagnostics
	s.scaleLocals = map[string]map[string]cty.Value{}
	for _, sc := range s.Scales {
		vals := map[string]cty.Value{}
		s.scaleLocals[sc.Name] = vals
		for _, l := range s.localOrder {
			if !l.PerScale {
				continue
			}
			v, d := l.Expr.Value(s.baseContext(map[string]cty.Value{"scale": sc.Object()}))
			for _, x := range d {
				x.Detail = strings.TrimSpace(x.Detail + fmt.Sprintf(" (local.%s at scale %q)", l.Name, sc.Name))
			}
			diags = append(diags, d...)
			if d.HasErrors() {
				v = cty.DynamicVal
			}
			vals[l.Name] = v
		}
	}
	return diags
}
