package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/zclconf/go-cty/cty"
)

// client is one connection with the statements of its mix prepared.
type client struct {
	session drivers.Session
	stmts   []drivers.Stmt
	args    []*params.Client
	next    int
}

func (cl *client) close() {
	for _, s := range cl.stmts {
		s.Close()
	}
	cl.session.Close()
}

// call runs the next query of the client's mix; rows are only counted.
func (cl *client) call(ctx context.Context) error {
	i := cl.next
	cl.next++
	if cl.next == len(cl.stmts) {
		cl.next = 0
	}
	_, err := cl.stmts[i].Query(ctx, cl.args[i].Next(), nil)
	return err
}

func (c *cell) openClient(ctx context.Context, mix []string, index int, seed uint64) (*client, error) {
	s, err := c.be.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("client %d: connecting: %w", index, err)
	}
	cl := &client{session: s, next: index % len(mix)}
	for _, qn := range mix {
		q := c.queries[qn]
		if q.binder == nil {
			cl.close()
			return nil, fmt.Errorf("query %s: a parameter has no value in the query's params", qn)
		}
		st, err := s.Prepare(ctx, q.bound.SQL)
		if err != nil {
			cl.close()
			return nil, fmt.Errorf("client %d: preparing %s: %w", index, qn, err)
		}
		cl.stmts = append(cl.stmts, st)
		cl.args = append(cl.args, q.binder.Client(seed, index))
	}
	return cl, nil
}

func toSampling(v config.SamplingValues) measure.Sampling {
	return measure.Sampling{Warmup: v.Warmup, MinDuration: secs(v.MinS), MinSamples: v.MinN,
		MaxDuration: secs(v.MaxS), Reps: v.Reps, Probe: secs(v.ProbeS)}
}

func (c *cell) rowBase(scenario string) results.Row {
	return results.Row{Scenario: scenario, Backend: c.cp.Cell.Backend.Name, Scale: c.sp.Scale.Name, NDatoms: c.sp.Stats.Datoms}
}

// measure runs every point of a scenario. A query whose first call passes
// the probe ceiling makes the scenario a ceiling row for this cell.
func (c *cell) measure(ctx context.Context, sp *plan.ScenarioPlan) {
	sc := sp.Scenario
	if len(sc.Streams) == 0 {
		return
	}
	samp := toSampling(sc.Sampling)
	if sc.Restart {
		c.coldWarm(ctx, sc, samp)
		return
	}
	if exceeded := c.probe(ctx, sc, samp); exceeded {
		return
	}
	seed := c.sp.Gen.Seed
	for _, pt := range sp.Points {
		if ctx.Err() != nil {
			return
		}
		var clients []*client
		var streams []measure.Stream
		var err error
		for si, st := range pt.Streams {
			ms := measure.Stream{Op: st.Op}
			for i := 0; i < st.Clients && err == nil; i++ {
				var cl *client
				cl, err = c.openClient(ctx, st.Mix, i, seed+uint64(si)*7919)
				if err == nil {
					clients = append(clients, cl)
					ms.Calls = append(ms.Calls, cl.call)
				}
			}
			streams = append(streams, ms)
		}
		if err != nil {
			for _, cl := range clients {
				cl.close()
			}
			c.run.fail("%s %s at %d clients: %v", c.name(), sc.Name, pt.Clients, err)
			continue
		}
		reps := make([][]results.Row, len(streams))
		for rep := 1; rep <= samp.Reps; rep++ {
			res, err := measure.RunPoint(ctx, samp, streams)
			if err != nil {
				c.run.fail("%s %s at %d clients: %v", c.name(), sc.Name, pt.Clients, err)
				break
			}
			for i, r := range res {
				row := results.FromResult(c.rowBase(sc.Name), r)
				row.Rep = rep
				if err := c.run.dir.AppendRaw(row); err != nil {
					c.run.fail("writing raw.csv: %v", err)
				}
				reps[i] = append(reps[i], row)
				if r.Errors > 0 {
					c.logError(sc.Name, r)
				}
			}
		}
		for _, cl := range clients {
			cl.close()
		}
		for _, rs := range reps {
			if len(rs) == 0 {
				continue
			}
			m := results.Median(rs)
			if err := c.run.dir.AppendTiming(m); err != nil {
				c.run.fail("writing timings.csv: %v", err)
			}
			c.run.out.Rows = append(c.run.out.Rows, m)
			c.run.logf("%s %-16s %-5s clients %-3d p50 %8.3f ms  p99 %8.3f ms  %10.1f ops/s  errors %d",
				c.name(), sc.Name, m.Op, m.Clients, m.P50Ms, m.P99Ms, m.Throughput, m.Errors)
		}
	}
}

func (c *cell) logError(scenario string, r measure.Result) {
	w, err := c.run.dir.Log("errors")
	if err != nil {
		return
	}
	defer w.Close()
	fmt.Fprintf(w, "%s %s %s %s op=%s clients=%d errors=%d timeouts=%d first: %s\n", time.Now().UTC().Format(time.RFC3339),
		scenario, c.cp.Cell.Backend.Name, c.sp.Scale.Name, r.Op, r.Clients, r.Errors, r.Timeouts, r.FirstError)
}

// probe times one call of each distinct query of the scenario against the
// ceiling. Past it, the scenario is recorded as a ceiling and skipped.
func (c *cell) probe(ctx context.Context, sc *config.Scenario, samp measure.Sampling) bool {
	seen := map[string]bool{}
	for _, st := range sc.Streams {
		for _, qn := range st.MixNames {
			if seen[qn] {
				continue
			}
			seen[qn] = true
			cl, err := c.openClient(ctx, []string{qn}, 0, c.sp.Gen.Seed)
			if err != nil {
				c.run.fail("%s %s: %v", c.name(), sc.Name, err)
				return true
			}
			elapsed, exceeded, err := measure.Probe(ctx, cl.call, samp.Probe)
			cl.close()
			if exceeded {
				row := results.CeilingRow(c.rowBase(sc.Name), 1, elapsed)
				_ = c.run.dir.AppendRaw(row)
				if err := c.run.dir.AppendTiming(row); err != nil {
					c.run.fail("writing timings.csv: %v", err)
				}
				c.run.out.Rows = append(c.run.out.Rows, row)
				c.run.logf("%s %s: query %s passed the %s ceiling: scenario skipped", c.name(), sc.Name, qn, samp.Probe)
				return true
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				// A failing query is measured anyway so its errors are counted and logged.
				c.run.logf("%s %s: probe of %s failed: %v", c.name(), sc.Name, qn, err)
			}
		}
	}
	return false
}

// check runs a scenario's checks on the admin session.
func (c *cell) check(ctx context.Context, sc *config.Scenario) {
	spec := c.run.plan.Spec
	ectx := spec.CellContext(c.cp.Cell, c.truth)
	for _, ck := range sc.Checks {
		cases, diags := ck.Resolve(ectx)
		line := results.CheckLine{Scenario: sc.Name, Backend: c.cp.Cell.Backend.Name, Scale: c.sp.Scale.Name, Name: ck.Name}
		if diags.HasErrors() {
			line.Status, line.Detail = string(checks.Fail), "cannot evaluate the check: "+diags.Error()
			c.writeCheck(line)
			continue
		}
		q := c.queries[ck.Query]
		passed, failed, skipped := 0, 0, 0
		var firstFail, firstSkip string
		for _, cc := range cases {
			out := c.runCase(ctx, sc, q, cc)
			switch out.Status {
			case checks.Pass:
				passed++
			case checks.Fail:
				failed++
				if firstFail == "" {
					firstFail = caseLabel(cc) + out.Detail
				}
			case checks.Skip:
				skipped++
				if firstSkip == "" {
					firstSkip = caseLabel(cc) + out.Detail
				}
			}
		}
		switch {
		case failed > 0:
			line.Status = string(checks.Fail)
			line.Detail = fmt.Sprintf("%d of %d cases wrong; first: %s", failed, len(cases), firstFail)
		case skipped > 0:
			line.Status = string(checks.Skip)
			line.Detail = fmt.Sprintf("%d of %d cases not answered within check_s; first: %s", skipped, len(cases), firstSkip)
		default:
			line.Status = string(checks.Pass)
			line.Detail = fmt.Sprintf("%d of %d cases as expected", passed, len(cases))
		}
		c.writeCheck(line)
	}
}

func caseLabel(cc config.CheckCase) string {
	if cc.Key == "" {
		return ""
	}
	return "[" + cc.Key + "] "
}

func (c *cell) writeCheck(line results.CheckLine) {
	if err := c.run.dir.AppendCheck(line); err != nil {
		c.run.fail("writing checks.txt: %v", err)
	}
	c.run.logf("%s %s %s %s: %s", line.Status, c.name(), line.Scenario, line.Name, line.Detail)
}

func (c *cell) runCase(ctx context.Context, sc *config.Scenario, q *boundQuery, cc config.CheckCase) checks.Outcome {
	merged := map[string]cty.Value{}
	for k, v := range q.values {
		merged[k] = v
	}
	for k, v := range cc.Params {
		merged[k] = v
	}
	binder, err := params.New(c.sp.Gen, q.bound.Names, merged)
	if err != nil {
		return checks.Outcome{Status: checks.Fail, Detail: err.Error()}
	}
	st, err := c.admin.Prepare(ctx, q.bound.SQL)
	if err != nil {
		return checks.Outcome{Status: checks.Fail, Detail: "preparing: " + err.Error()}
	}
	defer st.Close()
	cctx, cancel := context.WithTimeout(ctx, secs(sc.Sampling.CheckS))
	defer cancel()
	var rows [][]any
	_, err = st.Query(cctx, binder.Client(c.sp.Gen.Seed, 0).Next(), &rows)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return checks.Outcome{Status: checks.Skip, Detail: fmt.Sprintf("no answer within %gs", sc.Sampling.CheckS)}
		}
		return checks.Outcome{Status: checks.Fail, Detail: "query failed: " + err.Error()}
	}
	cols := columnsOf(st)
	return checks.Compare(cols, rows, cc.Expect)
}

// columnsOf returns the result's column names.
func columnsOf(st drivers.Stmt) []string {
	if cn, ok := st.(drivers.ColumnNamer); ok {
		return cn.Columns()
	}
	return nil
}
