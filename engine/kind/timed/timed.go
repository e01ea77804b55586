// Package timed holds what the sustained and open_loop scenario kinds
// share: read and write streams that may declare an open-loop rate, and
// running them for a fixed duration with measure.RunTimed, emitting a
// timing row, its HDR log and, per window, windows.csv rows.
package timed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/zclconf/go-cty/cty"
)

// StreamBlocks are the read and write blocks of a timed scenario.
var StreamBlocks = kind.StreamBlocks

// Stream is a read or write block of a timed scenario.
type Stream struct {
	Op      string
	Mix     []string
	Ops     []kind.Operation
	Clients int       // 0: the scenario's count
	Rates   []float64 // open loop: calls per second, one per phase; nil: closed loop
	Range   hcl.Range // the block, for diagnostics
}

// RateAt is the stream's rate in phase i (its only rate when it has one).
func (s Stream) RateAt(i int) float64 {
	switch {
	case len(s.Rates) == 0:
		return 0
	case i < len(s.Rates):
		return s.Rates[i]
	}
	return s.Rates[len(s.Rates)-1]
}

// DecodeStreams decodes the read and write blocks of content, each
// with an optional open-loop `rate`.
func DecodeStreams(content *hcl.BodyContent, ctx *hcl.EvalContext) ([]Stream, hcl.Diagnostics) {
	blocks, diags := kind.DecodeStreams(content, ctx, "rate")
	var out []Stream
	for _, b := range blocks {
		st := Stream{Op: b.Op, Mix: b.Mix, Ops: b.Ops, Clients: b.Clients, Range: b.Range}
		if a, ok := b.Extra["rate"]; ok {
			r, d := rates(a.Expr, ctx)
			diags = append(diags, d...)
			st.Rates = r
		}
		out = append(out, st)
	}
	if len(out) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No stream",
			Detail: "A timed scenario needs a read or a write block.", Subject: content.MissingItemRange.Ptr()})
	}
	return out, diags
}

// rates evaluates a rate: a number, or a list of numbers (phases).
func rates(expr hcl.Expression, ctx *hcl.EvalContext) ([]float64, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsWhollyKnown() {
		return []float64{1}, nil
	}
	bad := hcl.Diagnostics{kind.AttrError(expr, "Invalid rate", "rate is calls per second: a positive number, or a list of them (one phase each).")}
	var vals []cty.Value
	switch {
	case v.IsNull():
		return nil, bad
	case v.Type() == cty.Number:
		vals = []cty.Value{v}
	case v.Type().IsListType() || v.Type().IsTupleType():
		vals = v.AsValueSlice()
	default:
		return nil, bad
	}
	var out []float64
	for _, e := range vals {
		if e.IsNull() || e.Type() != cty.Number {
			return nil, bad
		}
		f, _ := e.AsBigFloat().Float64()
		if !(f > 0) || f > 1e7 {
			return nil, bad
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, bad
	}
	return out, nil
}

// Queries lists the queries of streams, each once.
func Queries(streams []Stream) []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range streams {
		for _, q := range kind.StreamQueries(st.Mix, st.Ops) {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// Writes reports whether a stream writes.
func Writes(streams []Stream) bool {
	for _, st := range streams {
		if st.Op == results.OpWrite || kind.OpsWrite(st.Ops) {
			return true
		}
	}
	return false
}

// WritesOps reports whether an operation of a stream writes: its
// clients then run in this process, where the writes are numbered and
// their commits recorded for the truth.
func WritesOps(streams []Stream) bool {
	for _, st := range streams {
		if kind.OpsWrite(st.Ops) {
			return true
		}
	}
	return false
}

// Operations lists the operations of streams, in order.
func Operations(streams []Stream) []kind.Operation {
	var out []kind.Operation
	for _, st := range streams {
		out = append(out, st.Ops...)
	}
	return out
}

// Generators lists the write generators of streams' operations.
func Generators(streams []Stream) []string {
	var out []string
	for _, st := range streams {
		out = append(out, kind.OpGenerators(st.Ops)...)
	}
	return out
}

// Run is one timed point: streams at their client counts and the rates of
// one phase.
type Run struct {
	Streams   []Stream
	Clients   []int     // per stream
	Rates     []float64 // per stream; 0: closed loop
	Duration  time.Duration
	Window    time.Duration // 0: no windows.csv rows
	LateBound time.Duration
	Warmup    int
	Grace     time.Duration // the per-call ceiling (probe_s): calls past it are cut, calls running at the end get this long
	// Reps repeats the duration (0 or 1: once): a raw row per rep, and
	// the timing row the median of the reps, as closed_loop's.
	Reps int
}

// reps is how many times the point runs its duration.
func (r *Run) reps() int { return max(r.Reps, 1) }

// Estimate bounds the point: its reps' durations, and a grace for each
// rep's stop.
func (r *Run) Estimate() (lo, hi time.Duration) {
	n := time.Duration(r.reps())
	return r.Duration * n, (r.Duration + 5*time.Second) * n
}

// Describe lists the streams.
func (r *Run) Describe() string {
	var parts []string
	for i, st := range r.Streams {
		s := fmt.Sprintf("%s %s x%d", st.Op, kind.DescribeStream(st.Mix, st.Ops), r.Clients[i])
		if r.Rates[i] > 0 {
			s += fmt.Sprintf(" at %g/s", r.Rates[i])
		}
		parts = append(parts, s)
	}
	reps := ""
	if r.reps() > 1 {
		reps = fmt.Sprintf(" (%d reps)", r.reps())
	}
	return fmt.Sprintf("%s%s: %s", r.Duration, reps, strings.Join(parts, "; "))
}

// Execute runs the point, number index of its scenario describing itself
// as describe, and emits its rows: a raw and a timing row per stream with
// its HDR log (an interval per window), a windows.csv row per stream and
// window when windows are on, and an openloop.csv row per open-loop
// stream. With a process client model (env is a kind.WorkerEnv) the
// clients run in worker processes, whose windows arrive merged while the
// run goes on; on a database with one writing process a writing point
// keeps them here.
func (r *Run) Execute(ctx context.Context, env kind.Env, index int, describe string) error {
	// The HDR log of each row (an operation's, a stream's total or the
	// stream's own), by the row's position in the expanded results: an
	// interval per window of every rep.
	var intervals [][]results.Interval
	var rows [][]results.Row
	var late, dropped []int64
	var rates []float64
	var errs []error
	for n := 1; n <= r.reps() && ctx.Err() == nil; n++ {
		var began time.Time
		onWindow := func(ws []measure.Window) {
			if len(ws) == 0 {
				return
			}
			if began.IsZero() {
				began = time.Now().Add(-ws[0].End)
			}
			slot := 0
			for _, w := range ws {
				for _, part := range measure.Expand([]measure.Result{w.Result}) {
					pw := w
					pw.Result = part
					for len(intervals) <= slot {
						intervals = append(intervals, nil)
					}
					intervals[slot] = append(intervals[slot], results.Interval{Start: began.Add(w.Start), End: began.Add(w.End), Hist: part.Hist})
					slot++
					if r.Window > 0 {
						wr := results.WindowRowOf(env.Row(), pw)
						if pw.Rate > 0 {
							wr.Op = results.RateOp(pw.Op, pw.Rate)
						}
						env.Emit(wr)
					}
				}
			}
		}
		res, err := r.measure(ctx, env, index, describe, onWindow)
		if err != nil {
			errs = append(errs, err)
		}
		res = measure.Expand(res)
		for len(rows) < len(res) {
			rows, late, dropped, rates = append(rows, nil), append(late, 0), append(dropped, 0), append(rates, 0)
		}
		for i, rr := range res {
			row := results.FromResult(env.Row(), rr)
			row.Rep = n
			if rr.Rate > 0 {
				row.Op = results.RateOp(rr.Op, rr.Rate)
			}
			env.Emit(results.Raw(row))
			rows[i] = append(rows[i], row)
			late[i] += rr.Late
			dropped[i] += rr.Dropped
			rates[i] = rr.Rate
			if rr.Errors > 0 {
				env.LogErrors(rr)
			}
		}
		if err != nil {
			break
		}
	}
	for i, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		row := rs[0]
		if len(rs) > 1 {
			row = results.Median(rs)
		} else {
			row.Rep, row.Reps = 1, 1
		}
		env.Emit(results.Timing(row))
		if i < len(intervals) && len(intervals[i]) > 0 {
			env.Emit(results.Hist{Row: row, Intervals: intervals[i]})
		}
		if rates[i] > 0 {
			env.Emit(results.OpenLoopRow{Row: row, Rate: rates[i], Late: late[i], Dropped: dropped[i]})
		}
	}
	return errors.Join(errs...)
}

// timed is the run as measure takes it.
func (r *Run) timed() measure.Timed {
	return measure.Timed{Warmup: r.Warmup, Duration: r.Duration, Window: r.Window, LateBound: r.LateBound, Grace: r.Grace, Probe: r.Grace}
}

// measure runs the point in worker processes when env has them, here
// otherwise.
func (r *Run) measure(ctx context.Context, env kind.Env, index int, describe string, onWindow func([]measure.Window)) ([]measure.Result, error) {
	we, ok := env.(kind.WorkerEnv)
	if !ok || WritesOps(r.Streams) {
		return r.measureHere(ctx, env, onWindow)
	}
	seed := env.Seed()
	var streams []kind.WorkerStream
	for si, st := range r.Streams {
		streams = append(streams, kind.WorkerStream{Op: st.Op, Mix: st.Mix, Ops: st.Ops, Seed: kind.StreamSeed(seed, si), Clients: r.Clients[si], Rate: r.Rates[si]})
	}
	ws, err := we.StartTimedWorkers(ctx, index, describe, r.timed(), streams)
	switch {
	case errors.Is(err, kind.ErrOneWritingProcess):
		env.Logf("clients run in this process: %v", err)
		return r.measureHere(ctx, env, onWindow)
	case err != nil:
		return nil, fmt.Errorf("starting workers: %w", err)
	}
	res, err := ws.Run(ctx, onWindow)
	if cerr := ws.Close(); cerr != nil {
		err = errors.Join(err, cerr)
	}
	return res, err
}

// measureHere opens the clients as goroutines of this process and runs
// the point.
func (r *Run) measureHere(ctx context.Context, env kind.Env, onWindow func([]measure.Window)) ([]measure.Result, error) {
	var clients []kind.Closer
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	seed := env.Seed()
	var streams []measure.TimedStream
	for si, st := range r.Streams {
		ms, cls, err := kind.OpenStream(ctx, env, st.Op, st.Mix, st.Ops, 0, r.Clients[si], kind.StreamSeed(seed, si))
		if err != nil {
			return nil, err
		}
		clients = append(clients, cls...)
		streams = append(streams, measure.TimedStream{Op: st.Op, Rate: r.Rates[si], Calls: ms.Calls, Ops: ms.Ops, OpCalls: ms.OpCalls})
	}
	return measure.RunTimed(ctx, r.timed(), streams, onWindow)
}
