// Package sustained is the sustained scenario kind, the seed suite's long run:
// the read mix (and writers, when declared) for duration_s seconds at
// once, reported every window_s seconds in windows.csv so drift shows,
// with the spec's samplers running alongside. A duration of 0 turns it
// off, as the seed suite's SUSTAINED_S=0.
package sustained

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kind/timed"
	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// Name is the kind's name in HCL.
const Name = "sustained"

// Kind is the sustained kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

// Schema implements kind.Kind.
func (Kind) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "duration_s"}, {Name: "window_s"}, {Name: "clients"}, {Name: "late_ms"}, {Name: "scales"}, {Name: "reps"}},
		Blocks:     timed.StreamBlocks,
	}
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{Window: 10 * time.Second, Clients: 1, LateBound: 10 * time.Millisecond}
	var diags hcl.Diagnostics
	num := func(name string, min float64, set func(float64)) {
		if a, ok := content.Attributes[name]; ok {
			v, d := kind.Number(a.Expr, ctx, name, min)
			diags = append(diags, d...)
			if !d.HasErrors() {
				set(v)
			}
		}
	}
	num("duration_s", 0, func(v float64) { def.Duration = secs(v) })
	num("window_s", 0.001, func(v float64) { def.Window = secs(v) })
	num("late_ms", 0, func(v float64) { def.LateBound = secs(v / 1000) })
	if a, ok := content.Attributes["clients"]; ok {
		n, d := kind.Int(a.Expr, ctx, "clients", 1)
		diags = append(diags, d...)
		def.Clients = n
	}
	if a, ok := content.Attributes["reps"]; ok {
		n, d := kind.Int(a.Expr, ctx, "reps", 1)
		diags = append(diags, d...)
		def.Reps = n
	}
	if a, ok := content.Attributes["scales"]; ok {
		l, d := kind.Strings(a.Expr, ctx, "scales")
		diags = append(diags, d...)
		def.Scales = l
	}
	st, d := timed.DecodeStreams(content, ctx)
	diags = append(diags, d...)
	def.Streams = st
	for _, s := range st {
		n := s.Clients
		if n == 0 {
			n = def.Clients
		}
		diags = append(diags, kind.CheckWriters(s.Ops, n)...)
	}
	return def, diags
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// Definition is one sustained scenario.
type Definition struct {
	Duration  time.Duration // 0: the scenario runs no point
	Window    time.Duration
	Clients   int // of streams that do not set theirs
	LateBound time.Duration
	Scales    []string // nil: every scale
	Streams   []timed.Stream
	Reps      int // repetitions of the duration (default 1)
}

// Queries implements kind.Definition.
func (d *Definition) Queries() []string { return timed.Queries(d.Streams) }

// Writes implements kind.Definition.
func (d *Definition) Writes() bool { return timed.Writes(d.Streams) }

// RunsInWorkers implements kind.WorkerRunner: with a process client
// model every stream's clients run in worker processes (a writing point
// on a database with one writing process keeps them in this process);
// the samplers stay in this process.
func (d *Definition) RunsInWorkers() bool { return !timed.WritesOps(d.Streams) }

// WorkersNote implements kind.WorkerNoter.
func (d *Definition) WorkersNote() string {
	if timed.WritesOps(d.Streams) {
		return "write operations: every client in this process (the writes' numbering and the commits the truth follows live here)"
	}
	return ""
}

// WriteGenerators implements kind.WriteGenerators: the generators of the
// write operations.
func (d *Definition) WriteGenerators() []string { return timed.Generators(d.Streams) }

// Operations implements kind.Operationer.
func (d *Definition) Operations() []kind.Operation { return timed.Operations(d.Streams) }

// Sampled implements kind.Sampled: samplers run during sustained runs.
func (d *Definition) Sampled() bool { return true }

// RunsOnScale implements kind.ScaleFilter.
func (d *Definition) RunsOnScale(name string) bool {
	if d.Scales == nil {
		return true
	}
	for _, s := range d.Scales {
		if s == name {
			return true
		}
	}
	return false
}

// Points implements kind.Definition: one point, none when the duration
// is 0.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	if d.Duration <= 0 {
		return nil
	}
	r := &timed.Run{Streams: d.Streams, Duration: d.Duration, Window: d.Window, LateBound: d.LateBound, Warmup: s.Warmup, Grace: s.Probe, Reps: d.Reps}
	for _, st := range d.Streams {
		n := st.Clients
		if n == 0 {
			n = d.Clients
		}
		r.Clients = append(r.Clients, n)
		r.Rates = append(r.Rates, st.RateAt(0))
	}
	return []kind.Point{&point{r}}
}

type point struct{ r *timed.Run }

func (p *point) Describe() string {
	return "sustained " + p.r.Describe() + ", windows of " + p.r.Window.String()
}

// Estimate: the duration, and the warm-up and the end's grace at most.
func (p *point) Estimate() (lo, hi time.Duration) { return p.r.Estimate() }

func (p *point) Run(ctx context.Context, env kind.Env) error {
	return p.r.Execute(ctx, env, 0, p.Describe())
}
