// Package coldwarm is the cold_warm scenario kind: before each query the
// store is closed, the backend restarted and the OS page cache emptied of
// it (engine's Env.Restart) and the store reopened (op "open": the first
// restart's time), then the query's first call is timed (cold_<query>)
// and exactly warm_calls more calls on the same connection
// (warm_<query>). When a restart could not make the store cold,
// checks.txt says SKIP with the reason and no cold_ row is written for
// that query: a warm cache is never measured as cold.
package coldwarm

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// Name is the kind's name in HCL.
const Name = "cold_warm"

// DefaultWarmCalls is the seed suite's number of warm calls per query.
const DefaultWarmCalls = 30

// Kind is the cold_warm kind.
type Kind struct{}

// Name implements kind.Kind.
func (Kind) Name() string { return Name }

// Schema implements kind.Kind: warm_calls and a read block naming the
// queries.
func (Kind) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "warm_calls"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: results.OpRead}},
	}
}

// Decode implements kind.Kind.
func (Kind) Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	def := &Definition{WarmCalls: DefaultWarmCalls}
	var diags hcl.Diagnostics
	if a, ok := content.Attributes["warm_calls"]; ok {
		n, d := kind.Int(a.Expr, ctx, "warm_calls", 1)
		diags = append(diags, d...)
		def.WarmCalls = n
	}
	streams, d := closedloop.Streams(content, ctx)
	diags = append(diags, d...)
	for _, st := range streams {
		if st.Clients > 1 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid clients",
				Detail: "A cold_warm scenario times one client's first and next calls: its read block takes no clients.", Subject: content.MissingItemRange.Ptr()})
		}
		if len(st.Ops) > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Operations in a cold_warm scenario",
				Detail: "A cold_warm scenario times the first call of each query after a restart: name them with mix = [query.A, ...], not operation blocks.", Subject: content.MissingItemRange.Ptr()})
		}
		for _, q := range st.Mix {
			if !contains(def.Mix, q) {
				def.Mix = append(def.Mix, q)
			}
		}
	}
	if len(streams) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Scenario measures nothing",
			Detail:  "A cold_warm scenario needs a read block naming its queries: read { mix = [query.A, query.B] }.",
			Subject: content.MissingItemRange.Ptr()})
	}
	return def, diags
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Definition is one cold_warm scenario.
type Definition struct {
	Mix       []string
	WarmCalls int
}

// Queries implements kind.Definition.
func (d *Definition) Queries() []string { return d.Mix }

// Writes implements kind.Definition.
func (d *Definition) Writes() bool { return false }

// Points implements kind.Definition: one point, the restart and every
// query's cold and warm calls.
func (d *Definition) Points(s measure.Sampling) []kind.Point {
	return []kind.Point{&point{def: d, samp: s}}
}

type point struct {
	def  *Definition
	samp measure.Sampling
}

func (p *point) Describe() string {
	return fmt.Sprintf("for each of %s: restart, then 1 cold and %d warm call(s)", strings.Join(p.def.Mix, ", "), p.def.WarmCalls)
}

// Estimate: at most the ceiling for each cold and each warm call (warm
// calls are counted, not timed); the restarts' time is the backend's.
func (p *point) Estimate() (lo, hi time.Duration) {
	return 0, time.Duration(len(p.def.Mix)*(1+p.def.WarmCalls)) * p.samp.Probe
}

// restartTypical is what a point typically spends per query: the
// restart (an embedded store's reopen, a server's restart: about a
// second) dwarfs the calls, a few milliseconds each (full.hcl at xs).
const restartTypical = time.Second

// Expected implements kind.Expecter: a restart per query, within the
// ceiling.
func (p *point) Expected() time.Duration {
	_, hi := p.Estimate()
	return min(time.Duration(len(p.def.Mix))*restartTypical, hi)
}

// Run restarts the store before each query: a query's cold call must not
// find the pages an earlier query of the point read back into the cache
// (the index's upper levels are shared). The open row is the first
// restart's; checks.txt says once per point whether every cold call was
// cold.
func (p *point) Run(ctx context.Context, env kind.Env) error {
	base := env.Row()
	line := results.CheckLine{Status: results.Pass, Scenario: base.Scenario, Backend: base.Backend, Scale: base.Scale,
		Name: results.ColdStartCheck}
	var notCold, errs []string
	for i, q := range p.def.Mix {
		info, err := env.Restart(ctx)
		if err != nil {
			return err
		}
		if i == 0 {
			open := results.CeilingRow(env.Row(), 1, info.Open)
			open.Op = results.OpOpen
			emit(env, open, nil)
			line.Detail = info.Did
		} else {
			env.Logf("restarted before %s's cold call in %s", q, info.Open.Round(time.Millisecond))
		}
		if info.NotCold != "" {
			notCold = append(notCold, fmt.Sprintf("%s: %s", q, info.NotCold))
		}
		if err := p.query(ctx, env, q, info.NotCold == ""); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", q, err))
		}
	}
	if len(p.def.Mix) > 1 {
		line.Detail += fmt.Sprintf(" (before each query's cold call: %s)", strings.Join(p.def.Mix, ", "))
	}
	if len(notCold) > 0 {
		line.Status, line.Detail = results.Skip, "cold calls not measured: "+strings.Join(notCold, "; ")
	}
	env.Emit(line)
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// emit writes a one-rep row to raw.csv and timings.csv, and its
// histogram: h, or the row's one call.
func emit(env kind.Env, row results.Row, h *results.Hist) {
	row.Rep, row.Reps = 1, 1
	env.Emit(results.Raw(row))
	env.Emit(results.Timing(row))
	if h == nil {
		one := results.HistOf(row, time.Now(), time.Duration(row.P50Ms*float64(time.Millisecond)))
		h = &one
	}
	h.Row = row
	env.Emit(*h)
}

// query times q's first call on a new connection (its cold call, written
// only when cold) and then exactly warm_calls more on the same connection.
func (p *point) query(ctx context.Context, env kind.Env, q string, cold bool) error {
	cl, err := env.OpenClient(ctx, []string{q}, 0, env.Seed())
	if err != nil {
		return err
	}
	defer cl.Close()
	elapsed, exceeded, err := measure.Probe(ctx, cl.Call, p.samp.Probe)
	first := results.CeilingRow(env.Row(), 1, elapsed)
	switch {
	case exceeded:
		emit(env, first, nil)
		return nil
	case err != nil && cold:
		first.Op, first.Count, first.Errors = results.ColdOp(q), 0, 1
		emit(env, first, nil)
		return err
	case err != nil:
		return err
	case cold:
		first.Op = results.ColdOp(q)
		emit(env, first, nil)
	}
	start := time.Now()
	res := warmCalls(ctx, cl.Call, p.def.WarmCalls, p.samp.Probe, results.WarmOp(q))
	if n := res.Count + res.Errors; n < int64(p.def.WarmCalls) {
		env.Logf("%s: %d of %d warm calls made: stopped by %s", q, n, p.def.WarmCalls, res.StoppedBy)
	}
	var h *results.Hist
	if res.Count > 0 {
		h = &results.Hist{Intervals: []results.Interval{{Start: start, End: start.Add(res.Elapsed), Hist: res.Hist}}}
	}
	warmRow := results.FromResult(env.Row(), res)
	emit(env, warmRow, h)
	warmRow.Rep = 1
	env.Emit(results.PrecisionOf(warmRow, res))
	if res.Errors > 0 {
		env.LogErrors(res)
	}
	return nil
}

// warmCalls makes exactly n calls one after the other, each under the
// probe ceiling (a context per call: n is small), and measures them: the
// row's count plus its errors is n, however long they take (max_s does
// not apply: warm_calls is a count). A call cut at the ceiling ends them,
// since each of the rest could wait as long; so does the caller's context.
func warmCalls(ctx context.Context, call measure.Call, n int, probe time.Duration, op string) measure.Result {
	res := measure.Result{Op: op, Clients: 1, Hist: measure.NewHistogram(), StoppedBy: measure.StopMin}
	var maxNs int64
	start := time.Now()
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			res.StoppedBy = measure.StopInterrupted
			break
		}
		d, exceeded, err := measure.Probe(ctx, call, probe)
		if err == nil && !exceeded {
			res.Count++
			maxNs = max(maxNs, int64(d))
			_ = res.Hist.RecordValue(max(int64(d), 1))
			continue
		}
		if ctx.Err() != nil {
			res.StoppedBy = measure.StopInterrupted
			break
		}
		res.Errors++
		if res.FirstError == "" {
			res.FirstError = fmt.Sprint(err)
			if exceeded {
				res.FirstError = fmt.Sprintf("%s of %s", measure.ErrCeiling, probe)
			}
		}
		if exceeded {
			res.Timeouts++
			res.StoppedBy = measure.StopMax
			break
		}
	}
	res.Elapsed = time.Since(start)
	if res.Count > 0 {
		q := res.Hist.ValueAtPercentilesSlice([]float64{50, 95, 99})
		res.P50, res.P95, res.P99 = time.Duration(min(q[0], maxNs)), time.Duration(min(q[1], maxNs)), time.Duration(min(q[2], maxNs))
		res.Max = time.Duration(maxNs)
	}
	if res.Elapsed > 0 {
		res.Throughput = float64(res.Count) / res.Elapsed.Seconds()
	}
	res.P50RelCI, res.P99RelCI = relCI(res.Hist, 0.5), relCI(res.Hist, 0.99)
	return res
}

// relCI is the relative half-width of the 95% order-statistic interval of
// h's q-quantile (+Inf when too few calls bracket it), as measure computes
// it for sampled points.
func relCI(h *hdrhistogram.Histogram, q float64) float64 {
	n := h.TotalCount()
	lo, hi, ok := stats.QuantileRanks(n, q, 0.95)
	center := float64(h.ValueAtPercentile(100 * q))
	if !ok || center <= 0 {
		return math.Inf(1)
	}
	at := func(rank int64) float64 { return float64(h.ValueAtPercentile(100 * float64(rank) / float64(n))) }
	return (at(hi) - at(lo)) / 2 / center
}
