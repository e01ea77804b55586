package runner

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/explain"
	"github.com/mentat-spec/mentat-spec/engine/gather"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// What runs around a point: the statistics and evidence engine/gather
// collects, and the plans engine/explain writes.

// runPoint runs one point between a reset of the server's statement
// statistics and a snapshot of them into logs/, so a slow point can be
// explained from the server's side.
func (c *cell) runPoint(ctx context.Context, sc *plan.Scenario, i int, pt kind.Point, env kind.Env) error {
	ctx = c.windowed(ctx)
	return c.gatherer().Around(ctx, c.gatherPoint(sc, i, 0, pt), func() error {
		if rp, ok := pt.(kind.Repeatable); ok {
			// Between reps, a threshold with abort may end the scenario.
			return kind.RunRepsWhile(ctx, rp.Reps(env), func() bool { return !c.aborted(sc) })
		}
		return pt.Run(ctx, env)
	})
}

// windowed is ctx with the hook by which the measuring loop says its
// clients are warm: the point's evidence starts again from there.
func (c *cell) windowed(ctx context.Context) context.Context {
	return measure.WithWindowStart(ctx, func() { c.gatherer().WindowStart(ctx) })
}

// gatherer is what gathers around the cell's points, made on first use.
func (c *cell) gatherer() *gather.Cell {
	if c.ev == nil {
		c.ev = &gather.Cell{Name: c.name(), Scale: c.pc.Scale.Name, Backend: c.pc.Backend.Name,
			Store: func() drivers.Backend { return c.be }, Dir: c.run.dir, Emit: c.run.emit,
			Logf: c.run.logf, Fail: c.run.fail, Tap: &c.run.tap}
	}
	return c.ev
}

// gatherPoint names point i of sc, its rep rep (0: all), for gather.
func (c *cell) gatherPoint(sc *plan.Scenario, i, rep int, pt kind.Point) gather.Point {
	return gather.Point{Scenario: sc.Name, Index: i, Rep: rep, Describe: pt.Describe(), Evidence: sc.Sampling.Evidence}
}

// explainer writes the cell's plans.
func (c *cell) explainer() explain.Cell {
	return explain.Cell{Scale: c.pc.Scale.Name, Backend: c.pc.Backend.Name, Store: c.be, Admin: c.admin,
		Statement: c.pc.Backend.Explain, Dir: c.run.dir}
}

// explainQuery is query n as explained: the first call of a client
// seeded 1, within the smallest probe ceiling of the scenarios running
// it; false when the checks supply a parameter.
func (c *cell) explainQuery(n string) (explain.Query, bool) {
	q := c.queries[n]
	if q == nil || q.binder == nil {
		return explain.Query{}, false
	}
	// A query with an `edn` text is explained by it: a store's own
	// explain (mentat_explain) takes the Datalog, not the SQL calling it.
	text := c.pc.Queries[n].SQL
	if e := c.pc.Queries[n].EDN; e != "" {
		text = e
	}
	return explain.Query{Name: n, SQL: q.bound.SQL, Names: q.bound.Names, Args: append([]any(nil), q.binder.Client(1, 0).Next()...),
		Text: text, Cap: c.explainCap(n)}, true
}

// analyzePoint writes, after point i of sc has run its timed reps, what
// one more execution of each of its queries did (engine/explain).
func (c *cell) analyzePoint(ctx context.Context, sc *plan.Scenario, i int) {
	if !sc.Sampling.Evidence || ctx.Err() != nil {
		return
	}
	var qs []explain.Query
	for _, n := range sc.Queries {
		if q, ok := c.explainQuery(n); ok {
			qs = append(qs, q)
		}
	}
	if err := c.explainer().Analyze(ctx, sc.Name, i, qs); err != nil {
		c.run.logf("%s %s: %v", c.name(), sc.Name, err)
	}
}

// Stretch implements kind.Stretches: a stretch of the point (a capacity
// probe) with the database's evidence around it, handed back to the kind
// that names its stretches.
func (e *pointEnv) Stretch(ctx context.Context, fn func() ([]results.Row, error)) (kind.Evidence, error) {
	facts, split, err := e.c.gatherer().Stretch(ctx, e.sc.Name, e.sc.Sampling.Evidence, fn)
	return kind.Evidence{Facts: facts, Split: split}, err
}
