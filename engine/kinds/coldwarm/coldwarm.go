// Package coldwarm is the cold_warm scenario kind: the store is closed,
// the backend's restart and drop_caches commands run, the store is
// reopened (op "open"), then each query's first call is timed
// (cold_<query>) and the next warm_calls calls on the same connection
// (warm_<query>).
package coldwarm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/closedloop"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Name is the kind's name in HCL.
const Name = "cold_warm"

// DefaultWarmCalls is the seed's number of warm calls per query.
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
	return fmt.Sprintf("restart, then 1 cold and %d warm call(s) of %s", p.def.WarmCalls, strings.Join(p.def.Mix, ", "))
}

// Estimate: at most the ceiling for each cold call and max_s for its warm
// calls; the restart command's time is the backend's.
func (p *point) Estimate() (lo, hi time.Duration) {
	return 0, time.Duration(len(p.def.Mix)) * (p.samp.Probe + p.samp.MaxDuration)
}

func (p *point) Run(ctx context.Context, env kind.Env) error {
	info, err := env.Restart(ctx)
	if err != nil {
		return err
	}
	open := results.CeilingRow(env.Row(), 1, info.Open)
	open.Op = results.OpOpen
	emit(env, open, nil)
	var errs []string
	for _, q := range p.def.Mix {
		if err := p.query(ctx, env, q); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", q, err))
		}
	}
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

func (p *point) query(ctx context.Context, env kind.Env, q string) error {
	cl, err := env.OpenClient(ctx, []string{q}, 0, env.Seed())
	if err != nil {
		return err
	}
	defer cl.Close()
	elapsed, exceeded, err := measure.Probe(ctx, cl.Call, p.samp.Probe)
	cold := results.CeilingRow(env.Row(), 1, elapsed)
	switch {
	case exceeded:
		emit(env, cold, nil)
		return nil
	case err != nil:
		cold.Op, cold.Count, cold.Errors = results.ColdOp(q), 0, 1
		emit(env, cold, nil)
		return err
	}
	cold.Op = results.ColdOp(q)
	emit(env, cold, nil)
	warm := p.samp
	warm.Warmup, warm.MinDuration, warm.MinSamples = 0, 0, p.def.WarmCalls
	start := time.Now()
	res, err := measure.RunPoint(ctx, warm, []measure.Stream{{Op: results.WarmOp(q), Calls: []measure.Call{cl.Call}}})
	if err != nil {
		return err
	}
	h := &results.Hist{Intervals: []results.Interval{{Start: start, End: start.Add(res[0].Elapsed), Hist: res[0].Hist}}}
	if res[0].Hist == nil {
		h = nil
	}
	warmRow := results.FromResult(env.Row(), res[0])
	emit(env, warmRow, h)
	warmRow.Rep = 1
	env.Emit(results.PrecisionOf(warmRow, res[0]))
	if res[0].Errors > 0 {
		env.LogErrors(res[0])
	}
	return nil
}
