// Package closedloop is the closed_loop scenario kind: streams of clients
// (read, write), each client calling its mix of queries back to back, at
// each client count of the scenario. The first call of each query is
// probed against the ceiling first; past it the scenario is recorded as a
// ceiling row and skipped in that cell.
package closedloop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Name is the kind's name in HCL.
const Name = "closed_loop"

// Kind is the closed_loop kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

// Schema implements kind.Kind.
func (Kind) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "clients"}},
		Blocks:     StreamBlocks,
	}
}

// StreamBlocks are the read and write blocks of a scenario.
var StreamBlocks = kind.StreamBlocks

// Stream is a read or write block: clients each looping over a mix, or
// drawing one of its operations per call.
type Stream struct {
	Op  string
	Mix []string
	Ops []kind.Operation
	// Clients is a fixed client count; 0 means the scenario's count.
	Clients int
}

// Streams decodes the read and write blocks of content.
func Streams(content *hcl.BodyContent, ctx *hcl.EvalContext) ([]Stream, hcl.Diagnostics) {
	blocks, diags := kind.DecodeStreams(content, ctx)
	out := make([]Stream, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, Stream{Op: b.Op, Mix: b.Mix, Ops: b.Ops, Clients: b.Clients})
	}
	return out, diags
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{Clients: []int{1}}
	var diags hcl.Diagnostics
	if a, ok := content.Attributes["clients"]; ok {
		l, d := kind.IntList(a.Expr, ctx, "clients", 1)
		diags = append(diags, d...)
		if !d.HasErrors() {
			def.Clients = l
		}
	}
	streams, d := Streams(content, ctx)
	diags = append(diags, d...)
	def.Streams = streams
	for _, st := range streams {
		n := st.Clients
		if n == 0 {
			n = slices.Max(def.Clients)
		}
		diags = append(diags, kind.CheckWriters(st.Ops, n)...)
	}
	return def, diags
}

// Definition is one closed_loop scenario.
type Definition struct {
	Clients []int
	Streams []Stream
}

// Queries implements kind.Definition.
func (d *Definition) Queries() []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range d.Streams {
		for _, q := range kind.StreamQueries(st.Mix, st.Ops) {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// RunsInWorkers implements kind.WorkerRunner: with a process client
// model each point's clients run in worker processes, unless an
// operation writes: the writes' numbering and the commits the truth
// follows live in this process.
func (d *Definition) RunsInWorkers() bool { return !d.writesOps() }

// WorkersNote implements kind.WorkerNoter.
func (d *Definition) WorkersNote() string {
	if d.writesOps() {
		return "write operations: every client in this process (the writes' numbering and the commits the truth follows live here)"
	}
	return ""
}

func (d *Definition) writesOps() bool {
	for _, st := range d.Streams {
		if kind.OpsWrite(st.Ops) {
			return true
		}
	}
	return false
}

// Writes implements kind.Definition.
func (d *Definition) Writes() bool {
	for _, st := range d.Streams {
		if st.Op == results.OpWrite || kind.OpsWrite(st.Ops) {
			return true
		}
	}
	return false
}

// WriteGenerators implements kind.WriteGenerators: the generators of the
// write operations.
func (d *Definition) WriteGenerators() []string {
	var out []string
	for _, st := range d.Streams {
		out = append(out, kind.OpGenerators(st.Ops)...)
	}
	return out
}

// WriteQueries lists the queries the write operations run.
func (d *Definition) WriteQueries() []string {
	var out []string
	for _, st := range d.Streams {
		out = append(out, kind.WriteQueries(st.Ops)...)
	}
	return out
}

// Operations lists the streams' operations.
func (d *Definition) Operations() []kind.Operation {
	var out []kind.Operation
	for _, st := range d.Streams {
		out = append(out, st.Ops...)
	}
	return out
}

// Points implements kind.Definition: one point per client count. The
// points of one cell share the probe's verdict.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	state := &probeState{}
	var out []kind.Point
	for i, n := range d.Clients {
		out = append(out, &Point{def: d, index: i, clients: n, samp: s, state: state})
	}
	return out
}

type probeState struct {
	probed   bool
	exceeded bool
}

// Point is one client count of a closed_loop scenario.
type Point struct {
	def     *Definition
	index   int // in the scenario's points
	clients int
	samp    measure.Sampling
	state   *probeState
}

// StreamClients is the client count of stream st at this point.
func (p *Point) StreamClients(st Stream) int {
	if st.Clients > 0 {
		return st.Clients
	}
	return p.clients
}

// Clients is the point's client count over all its streams: how many
// worker processes the "process" client model starts for it.
func (p *Point) Clients() int {
	n := 0
	for _, st := range p.def.Streams {
		n += p.StreamClients(st)
	}
	return n
}

// Describe implements kind.Point.
func (p *Point) Describe() string {
	var streams []string
	for _, st := range p.def.Streams {
		streams = append(streams, fmt.Sprintf("%s %s x%d", st.Op, kind.DescribeStream(st.Mix, st.Ops), p.StreamClients(st)))
	}
	return fmt.Sprintf("clients %-4d %s", p.clients, strings.Join(streams, "; "))
}

// Estimate implements kind.Point: reps of min_s to max_s each. The probe
// before the first point is one call per query (a query that hits the
// ceiling skips the scenario instead).
func (p *Point) Estimate() (lo, hi time.Duration) {
	reps := time.Duration(max(p.samp.Reps, 1))
	return reps * p.samp.MinDuration, reps * p.samp.MaxDuration
}

// adaptiveShare is where between min_s and max_s an adaptive rep
// typically stops: specs/full.hcl at xs, s and m (BENCHMARKS.md) stopped
// 77% of its reps by precision soon after min_s and 20% at max_s.
const adaptiveShare = 0.2

// Expected implements kind.Expecter: a fixed rep stops at min_s (the
// slow query that needs max_s for min_n calls is the exception), an
// adaptive one adaptiveShare of the way to max_s.
func (p *Point) Expected() time.Duration {
	reps := time.Duration(max(p.samp.Reps, 1))
	rep := p.samp.MinDuration
	if p.samp.Precision > 0 && p.samp.MaxDuration > rep {
		rep += time.Duration(adaptiveShare * float64(p.samp.MaxDuration-rep))
	}
	return reps * rep
}

// Run implements kind.Point: every rep back to back.
func (p *Point) Run(ctx context.Context, env kind.Env) error {
	return kind.RunReps(ctx, p.Reps(env))
}

var _ kind.Repeatable = (*Point)(nil)

// Reps implements kind.Repeatable.
func (p *Point) Reps(env kind.Env) kind.RepRun {
	return &repRun{p: p, env: env}
}

// repRun is one point's reps: the clients (or workers) the first rep
// opens stay open until Release.
type repRun struct {
	p   *Point
	env kind.Env
	acc reps

	clients []kind.Closer
	streams []measure.Stream // over clients
	workers kind.Workers
}

func (r *repRun) Count() int { return max(r.p.samp.Reps, 1) }

// Rep implements kind.RepRun. The scenario's probe runs before the first
// rep of its first point; past the ceiling no rep of any of its points
// runs.
func (r *repRun) Rep(ctx context.Context, n int) (bool, error) {
	p := r.p
	if !p.state.probed {
		p.state.probed = true
		exceeded, err := p.probe(ctx, r.env)
		if err != nil {
			return true, err
		}
		p.state.exceeded = exceeded
	}
	if p.state.exceeded {
		return true, nil
	}
	if we, ok := r.env.(kind.WorkerEnv); ok {
		if r.workers == nil {
			ws, err := p.startWorkers(ctx, we)
			if err != nil {
				return true, err
			}
			r.workers = ws
		}
		if err := r.acc.measure(ctx, r.env, n, r.workers.Rep); err != nil {
			return true, fmt.Errorf("at %d clients: %w", p.clients, err)
		}
		return false, nil
	}
	if r.streams == nil {
		if err := r.open(ctx); err != nil {
			return true, err
		}
	}
	err := r.acc.measure(ctx, r.env, n, func(ctx context.Context) ([]measure.Result, error) {
		// A lost connection (measure.ErrClientLost) comes with what was
		// measured up to then: its rows are kept, and the reason ends the
		// point.
		return measure.RunPoint(ctx, p.samp, r.streams)
	})
	return err != nil, err
}

// open opens the point's clients.
func (r *repRun) open(ctx context.Context) error {
	p := r.p
	seed := r.env.Seed()
	var streams []measure.Stream
	for si, st := range p.def.Streams {
		ms, cls, err := kind.OpenStream(ctx, r.env, st.Op, st.Mix, st.Ops, 0, p.StreamClients(st), kind.StreamSeed(seed, si))
		if err != nil {
			r.Release()
			return fmt.Errorf("at %d clients: %w", p.clients, err)
		}
		r.clients = append(r.clients, cls...)
		streams = append(streams, ms)
	}
	r.streams = streams
	return nil
}

// Release implements kind.RepRun.
func (r *repRun) Release() error {
	for _, cl := range r.clients {
		cl.Close()
	}
	r.clients, r.streams = nil, nil
	if r.workers == nil {
		return nil
	}
	err := r.workers.Close()
	r.workers = nil
	if err != nil {
		return fmt.Errorf("at %d clients: %w", r.p.clients, err)
	}
	return nil
}

// Finish implements kind.RepRun.
func (r *repRun) Finish() error {
	err := r.Release()
	r.acc.finish(r.env)
	return err
}

// startWorkers starts the point's clients in worker processes; every rep
// merges their histograms.
func (p *Point) startWorkers(ctx context.Context, env kind.WorkerEnv) (kind.Workers, error) {
	seed := env.Seed()
	var streams []kind.WorkerStream
	for si, st := range p.def.Streams {
		streams = append(streams, kind.WorkerStream{Op: st.Op, Mix: st.Mix, Ops: st.Ops, Seed: kind.StreamSeed(seed, si), Clients: p.StreamClients(st)})
	}
	ws, err := env.StartWorkers(ctx, p.index, p.Describe(), p.samp, streams)
	if err != nil {
		return nil, fmt.Errorf("at %d clients: starting workers: %w", p.clients, err)
	}
	return ws, nil
}

// MeasureReps runs the sampling's reps of streams, emitting each rep's
// raw rows and then each stream's timing row (the median over reps) with
// its HDR log: one interval per rep. A rep that returns rows with an
// error (a client lost) has its rows emitted, and ends the reps.
func MeasureReps(ctx context.Context, env kind.Env, samp measure.Sampling, streams []measure.Stream) error {
	return MeasureRepsWith(ctx, env, samp.Reps, func(ctx context.Context) ([]measure.Result, error) {
		return measure.RunPoint(ctx, samp, streams)
	})
}

// MeasureRepsWith is MeasureReps with each rep measured by rep: streams
// whose clients run in other processes too (write_mixed's readers in
// workers next to its writer).
func MeasureRepsWith(ctx context.Context, env kind.Env, count int, rep func(context.Context) ([]measure.Result, error)) error {
	var acc reps
	defer acc.finish(env)
	for n := 1; n <= max(count, 1); n++ {
		if err := acc.measure(ctx, env, n, rep); err != nil {
			return err
		}
	}
	return nil
}

// reps collects a point's reps: each stream's raw rows, and its
// histograms for the HDR log.
type reps struct {
	rows  [][]results.Row
	hists [][]results.Interval
	// last is what the last rep measured added, for Saved (resume.go).
	last    []repStream
	lastRep int
}

// measure runs rep number n, emitting its raw and precision rows as soon
// as it is measured.
func (a *reps) measure(ctx context.Context, env kind.Env, n int, rep func(context.Context) ([]measure.Result, error)) error {
	start := time.Now()
	res, err := rep(ctx)
	cpu := results.ClientCPUPerCall(res)
	res = measure.Expand(res) // a row per operation, then the stream's total
	for len(a.rows) < len(res) {
		a.rows = append(a.rows, nil)
		a.hists = append(a.hists, nil)
	}
	a.last, a.lastRep = a.last[:0], n
	for i, r := range res {
		row := results.FromResult(env.Row(), r)
		row.Rep = n
		env.Emit(results.Raw(row))
		pr := results.PrecisionOf(row, r)
		pr.ClientCPUUs = cpu
		env.Emit(pr)
		a.rows[i] = append(a.rows[i], row)
		st := repStream{Stream: i, Row: row}
		if r.Hist != nil {
			iv := results.Interval{Start: start, End: start.Add(r.Elapsed), Hist: r.Hist}
			a.hists[i] = append(a.hists[i], iv)
			env.Emit(results.RepHist{Row: row, Interval: iv})
			st.Hist = &iv
		}
		a.last = append(a.last, st)
		if r.Errors > 0 {
			env.LogErrors(r)
		}
	}
	return err
}

// finish emits each stream's timing row, the median over its reps, and
// its HDR log.
func (a *reps) finish(env kind.Env) {
	for i, rs := range a.rows {
		if len(rs) > 0 {
			t := results.Median(rs)
			env.Emit(results.Timing(t))
			if len(a.hists[i]) > 0 {
				env.Emit(results.Hist{Row: t, Intervals: a.hists[i]})
			}
		}
	}
	a.rows, a.hists, a.last = nil, nil, nil
}

// probe times one call of each query against the ceiling. Past it, the
// scenario is recorded as a ceiling and skipped in this cell.
func (p *Point) probe(ctx context.Context, env kind.Env) (bool, error) {
	for _, qn := range p.def.Queries() {
		cl, err := env.OpenClient(ctx, []string{qn}, 0, env.Seed())
		if err != nil {
			return false, err
		}
		elapsed, exceeded, err := measure.Probe(ctx, cl.Call, p.samp.Probe)
		cl.Close()
		if exceeded {
			row := results.CeilingRow(env.Row(), 1, elapsed)
			env.Emit(results.Raw(row))
			env.Emit(results.Timing(row))
			env.Emit(results.HistOf(row, time.Now().Add(-elapsed), elapsed))
			env.Logf("query %s passed the %s ceiling: scenario skipped", qn, p.samp.Probe)
			return true, nil
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			// A failing query is measured anyway so its errors are counted.
			env.Logf("probe of %s failed: %v", qn, err)
		}
	}
	return false, nil
}
