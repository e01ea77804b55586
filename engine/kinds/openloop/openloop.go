// Package openloop is the open_loop scenario kind: streams that call at a
// fixed rate (constant arrivals) whatever the latency, so latency under an
// offered load can be measured, as wrk2 and pgbench -R do. A stream's
// rate may be a list: one point per rate, in order (phases). Latency is
// measured from each call's intended start; calls that start later than
// late_ms are counted as late, calls never started as dropped
// (openloop.csv).
package openloop

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kind/timed"
	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// Name is the kind's name in HCL.
const Name = "open_loop"

// DefaultClients is how many connections serve a stream's arrivals when
// it does not say.
const DefaultClients = 4

// Kind is the open_loop kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

// Schema implements kind.Kind.
func (Kind) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "duration_s"}, {Name: "late_ms"}, {Name: "reps"}},
		Blocks:     timed.StreamBlocks,
	}
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{LateBound: 10 * time.Millisecond}
	var diags hcl.Diagnostics
	if a, ok := content.Attributes["duration_s"]; ok {
		v, d := kind.Number(a.Expr, ctx, "duration_s", 0.001)
		diags = append(diags, d...)
		def.Duration = time.Duration(v * float64(time.Second))
	}
	if a, ok := content.Attributes["late_ms"]; ok {
		v, d := kind.Number(a.Expr, ctx, "late_ms", 0)
		diags = append(diags, d...)
		def.LateBound = time.Duration(v * float64(time.Millisecond))
	}
	if a, ok := content.Attributes["reps"]; ok {
		n, d := kind.Int(a.Expr, ctx, "reps", 1)
		diags = append(diags, d...)
		def.Reps = n
	}
	st, d := timed.DecodeStreams(content, ctx)
	diags = append(diags, d...)
	def.Streams = st
	for _, s := range st {
		if len(s.Rates) == 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing rate",
				Detail: fmt.Sprintf("The %s stream of an open_loop scenario needs rate = calls per second (or a list of them).", s.Op), Subject: s.Range.Ptr()})
		}
		def.Phases = max(def.Phases, len(s.Rates))
		n := s.Clients
		if n == 0 {
			n = DefaultClients
		}
		diags = append(diags, kind.CheckWriters(s.Ops, n)...)
	}
	return def, diags
}

// Definition is one open_loop scenario.
type Definition struct {
	Duration  time.Duration // per phase; 0: the sampling's min_s
	LateBound time.Duration
	Streams   []timed.Stream
	Phases    int
	Reps      int // repetitions of each phase (default 1)
}

// Queries implements kind.Definition.
func (d *Definition) Queries() []string { return timed.Queries(d.Streams) }

// Writes implements kind.Definition.
func (d *Definition) Writes() bool { return timed.Writes(d.Streams) }

// RunsInWorkers implements kind.WorkerRunner: with a process client
// model every stream's clients run in worker processes, each worker
// calling at its share of the stream's rate (a writing point on a
// database with one writing process keeps them in this process).
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

// Points implements kind.Definition: one per rate phase.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	dur := d.Duration
	if dur <= 0 {
		dur = max(s.MinDuration, time.Second)
	}
	var out []kind.Point
	for ph := 0; ph < d.Phases; ph++ {
		r := &timed.Run{Streams: d.Streams, Duration: dur, LateBound: d.LateBound, Warmup: s.Warmup, Grace: s.Probe, Reps: d.Reps}
		for _, st := range d.Streams {
			n := st.Clients
			if n == 0 {
				n = DefaultClients
			}
			r.Clients = append(r.Clients, n)
			r.Rates = append(r.Rates, st.RateAt(ph))
		}
		out = append(out, &point{r: r, index: ph})
	}
	return out
}

type point struct {
	r     *timed.Run
	index int // the phase: the point's index in its scenario
}

func (p *point) Describe() string { return "open loop " + p.r.Describe() }

func (p *point) Estimate() (lo, hi time.Duration) { return p.r.Estimate() }

func (p *point) Run(ctx context.Context, env kind.Env) error {
	return p.r.Execute(ctx, env, p.index, p.Describe())
}
