package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// client is one connection with the statements of its mix prepared.
type client struct {
	session drivers.Session
	stmts   []drivers.Stmt
	args    []*params.Client
	next    int
	// calls and errs feed the live progress: one uncontended add per
	// call on the client's own counters.
	calls, errs atomic.Int64
	lost        error // set once the connection is gone: every later call returns it
}

func (cl *client) Close() {
	for _, s := range cl.stmts {
		s.Close()
	}
	cl.session.Close()
}

// Call runs the next query of the client's mix; rows are only counted.
func (cl *client) Call(ctx context.Context) error {
	i := cl.next
	cl.next++
	if cl.next == len(cl.stmts) {
		cl.next = 0
	}
	if cl.lost != nil {
		return cl.lost
	}
	_, err := cl.stmts[i].Query(ctx, cl.args[i].Next(), nil)
	cl.calls.Add(1)
	if err != nil {
		cl.errs.Add(1)
		if ctx.Err() == nil && errors.Is(err, drivers.ErrConnLost) {
			// No reconnect per call against a server that is gone: the
			// client is lost for the rest of the point (measure ends it).
			cl.lost = fmt.Errorf("%w: %w", measure.ErrClientLost, err)
			return cl.lost
		}
	}
	return err
}

func (c *cell) openClient(ctx context.Context, mix []string, index int, seed uint64) (*client, error) {
	if c.be == nil {
		return nil, fmt.Errorf("the store is closed")
	}
	s, err := c.be.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("client %d: connecting: %w", index, err)
	}
	cl := &client{session: s, next: index % len(mix)}
	for _, qn := range mix {
		q := c.queries[qn]
		if q == nil {
			cl.Close()
			return nil, fmt.Errorf("no query %q", qn)
		}
		if q.binder == nil {
			cl.Close()
			return nil, fmt.Errorf("query %s: a parameter has no value in the query's params", qn)
		}
		st, err := s.Prepare(ctx, q.bound.SQL)
		if err != nil {
			cl.Close()
			return nil, fmt.Errorf("client %d: preparing %s: %w", index, qn, err)
		}
		cl.stmts = append(cl.stmts, st)
		cl.args = append(cl.args, q.binder.Client(seed, index))
	}
	return cl, nil
}

// pointEnv is what a scenario's points run against (kind.Env).
type pointEnv struct {
	c  *cell
	sc *plan.Scenario

	mu      sync.Mutex
	clients []*client // opened by the point, for the live progress
}

// counts sums the calls and errors of the point's clients so far.
func (e *pointEnv) counts() (n, errs int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, cl := range e.clients {
		n += cl.calls.Load()
		errs += cl.errs.Load()
	}
	return n, errs
}

var _ kind.Env = (*pointEnv)(nil)

func (e *pointEnv) Sampling() measure.Sampling { return e.sc.Sampling.Sampling }

func (e *pointEnv) Seed() uint64 { return e.c.pc.Scale.Gen.Seed }

func (e *pointEnv) OpenClient(ctx context.Context, mix []string, index int, seed uint64) (kind.Client, error) {
	cl, err := e.c.openClient(ctx, mix, index, seed)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.clients = append(e.clients, cl)
	e.mu.Unlock()
	return cl, nil
}

func (e *pointEnv) Row() results.Row {
	return results.Row{Scenario: e.sc.Name, Backend: e.c.pc.Backend.Name, Scale: e.c.pc.Scale.Name, NDatoms: e.c.pc.Scale.Stats.Datoms}
}

func (e *pointEnv) Emit(rec results.Record) { e.c.run.emit(rec) }

func (e *pointEnv) Logf(format string, args ...any) {
	e.c.run.logf("%s %s: %s", e.c.name(), e.sc.Name, fmt.Sprintf(format, args...))
}

func (e *pointEnv) LogErrors(r measure.Result) {
	e.c.run.logTo("errors", "%s %s %s %s op=%s clients=%d errors=%d timeouts=%d first: %s\n", time.Now().UTC().Format(time.RFC3339),
		e.sc.Name, e.c.pc.Backend.Name, e.c.pc.Scale.Name, r.Op, r.Clients, r.Errors, r.Timeouts, r.FirstError)
}

func (e *pointEnv) Restart(ctx context.Context) (kind.RestartInfo, error) {
	return e.c.restart(ctx, e.sc.Name)
}

// check runs a scenario's checks on the admin session.
func (c *cell) check(ctx context.Context, sc *plan.Scenario) {
	for _, ck := range c.pc.Checks(sc, c.truth) {
		line := results.CheckLine{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Name: ck.Name}
		if ck.Err != "" {
			line.Status, line.Detail = string(checks.Fail), ck.Err
			c.run.emit(line)
			continue
		}
		q := c.queries[ck.Query]
		passed, failed, skipped := 0, 0, 0
		var firstFail, firstSkip string
		for _, cc := range ck.Cases {
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
			line.Detail = fmt.Sprintf("%d of %d cases wrong; first: %s", failed, len(ck.Cases), firstFail)
		case skipped > 0:
			line.Status = string(checks.Skip)
			line.Detail = fmt.Sprintf("%d of %d cases not answered within check_s; first: %s", skipped, len(ck.Cases), firstSkip)
		default:
			line.Status = string(checks.Pass)
			line.Detail = fmt.Sprintf("%d of %d cases as expected", passed, len(ck.Cases))
		}
		c.run.emit(line)
	}
}

func caseLabel(cc plan.CheckCase) string {
	if cc.Key == "" {
		return ""
	}
	return "[" + cc.Key + "] "
}

func (c *cell) runCase(ctx context.Context, sc *plan.Scenario, q *boundQuery, cc plan.CheckCase) checks.Outcome {
	if q == nil {
		return checks.Outcome{Status: checks.Fail, Detail: "the check's query is not declared"}
	}
	merged := make(map[string]params.Spec, len(q.params)+len(cc.Params))
	for k, v := range q.params {
		merged[k] = v
	}
	for k, v := range cc.Params {
		merged[k] = v
	}
	binder, err := params.New(c.pc.Scale.Gen, q.bound.Names, merged)
	if err != nil {
		return checks.Outcome{Status: checks.Fail, Detail: err.Error()}
	}
	st, err := c.admin.Prepare(ctx, q.bound.SQL)
	if err != nil {
		return checks.Outcome{Status: checks.Fail, Detail: "preparing: " + err.Error()}
	}
	defer st.Close()
	cctx, cancel := context.WithTimeout(ctx, sc.Sampling.Check)
	defer cancel()
	var rows [][]any
	_, err = st.Query(cctx, binder.Client(c.pc.Scale.Gen.Seed, 0).Next(), &rows)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return checks.Outcome{Status: checks.Skip, Detail: fmt.Sprintf("no answer within %s", sc.Sampling.Check)}
		}
		return checks.Outcome{Status: checks.Fail, Detail: "query failed: " + err.Error()}
	}
	return checks.Compare(columnsOf(st), rows, cc.Expect)
}

// columnsOf returns the result's column names.
func columnsOf(st drivers.Stmt) []string {
	if cn, ok := st.(drivers.ColumnNamer); ok {
		return cn.Columns()
	}
	return nil
}
