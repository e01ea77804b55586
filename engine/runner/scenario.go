package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/answer"
	"github.com/mentat-spec/mentat-spec/engine/client"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/opwrite"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// openClient opens client index of a mix; reader says the client
// belongs to a point that does not write: it gets the backend's reader
// session where it has one (drivers.ReaderSessions).
func (c *cell) openClient(ctx context.Context, mix []string, index int, seed uint64, reader bool) (*client.Client, error) {
	s, err := c.clientSession(ctx, index, reader)
	if err != nil {
		return nil, err
	}
	return client.Open(ctx, s, mix, c.clientQuery, index, seed)
}

// clientQuery is query n as the clients run it.
func (c *cell) clientQuery(n string) (client.Query, bool) {
	q := c.queries[n]
	if q == nil {
		return client.Query{}, false
	}
	return client.Query{SQL: q.bound.SQL, Binder: q.binder}, true
}

// clientSession opens client index's session: the backend's reader
// session for a point that does not write, where it has one.
func (c *cell) clientSession(ctx context.Context, index int, reader bool) (drivers.Session, error) {
	if c.be == nil {
		return nil, fmt.Errorf("the store is closed")
	}
	var s drivers.Session
	var err error
	if rs, ok := c.be.(drivers.ReaderSessions); ok && reader {
		s, err = rs.ReaderSession(ctx)
	} else {
		s, err = c.be.Session(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("client %d: connecting: %w", index, err)
	}
	return s, nil
}

// pointEnv is what a scenario's points run against (kind.Env).
type pointEnv struct {
	c  *cell
	sc *plan.Scenario

	mu      sync.Mutex
	clients []*client.Client // opened by the point, for the live progress
	writers *opwrite.Pool    // write operations' shared writing sessions
	// Write operations' contention by operation, logged when the point
	// ends.
	contention map[string]*opwrite.Tally
}

// counts sums the calls and errors of the point's clients so far.
func (e *pointEnv) counts() (n, errs int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, cl := range e.clients {
		cn, ce := cl.Counts()
		n += cn
		errs += ce
	}
	return n, errs
}

var _ kind.Env = (*pointEnv)(nil)

func (e *pointEnv) Sampling() measure.Sampling { return e.sc.Sampling.Sampling }

func (e *pointEnv) Seed() uint64 { return e.c.pc.Scale.Gen.Seed }

func (e *pointEnv) OpenClient(ctx context.Context, mix []string, index int, seed uint64) (kind.Client, error) {
	cl, err := e.c.openClient(ctx, mix, index, seed, !e.sc.Writes)
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

// check runs a scenario's checks on a session opened as the checker.
// With a write in doubt, a check that fails against the truth without it
// is run again against the truth with it: either state is a legal one.
func (c *cell) check(ctx context.Context, sc *plan.Scenario) {
	var alt []plan.Check
	if c.truthAlt != nil {
		alt = c.pc.Checks(sc, c.truthAlt)
	}
	sess, err := c.be.Session(drivers.WithRole(ctx, drivers.RoleChecker))
	if err == nil {
		defer sess.Close()
	}
	for i, ck := range c.pc.Checks(sc, c.truth) {
		if err != nil && ck.Err == "" {
			ck.Err = "a session for the checks: " + err.Error()
		}
		line := c.checkLine(ctx, sess, sc, ck, false)
		if line.Status == string(checks.Fail) && i < len(alt) && err == nil {
			if l2 := c.checkLine(ctx, sess, sc, alt[i], true); l2.Status != string(checks.Fail) {
				line = l2
				line.Detail += " (" + c.doubt + ": it committed)"
			}
		}
		c.run.emit(line)
	}
}

func (c *cell) checkLine(ctx context.Context, sess drivers.Session, sc *plan.Scenario, ck plan.Check, alt bool) results.CheckLine {
	line := results.CheckLine{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Name: ck.Name}
	if ck.Err != "" {
		line.Status, line.Detail = string(checks.Fail), ck.Err
		return line
	}
	q := c.queries[ck.Query]
	passed, failed, skipped := 0, 0, 0
	var firstFail, firstSkip string
	state, comparable := c.writeState()
	for i, cc := range ck.Cases {
		out, ans := c.runCaseOn(ctx, sess, sc, q, cc)
		if ans != nil && comparable && !alt && c.run.cross != nil {
			id := fmt.Sprintf("%d\x00%s\x00%s\x00%s", i, cc.Key, ans.params, state)
			if err := c.run.cross.Record(c.pc.Backend.Name, sc.Name, ck.Name, id, caseLabel(cc), ans.columns, ans.rows); err != nil {
				c.run.fail("%s %s: %v", c.name(), sc.Name, err)
			}
		}
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
	return line
}

func caseLabel(cc plan.CheckCase) string {
	if cc.Key == "" {
		return ""
	}
	return "[" + cc.Key + "] "
}

// caseAnswer is what a check case's query answered, for the
// cross-backend comparison.
type caseAnswer struct {
	params  string // name=value of each parameter, by name: dialects order markers differently
	columns []string
	rows    [][]any
}

// namedParams renders a call's parameters by name, sorted.
func namedParams(names []string, args []any) string {
	pairs := make([]string, 0, len(names))
	for i, n := range names {
		if i < len(args) {
			pairs = append(pairs, fmt.Sprintf("%s=%v", n, args[i]))
		}
	}
	slices.Sort(pairs)
	return strings.Join(slices.Compact(pairs), " ")
}

// runCaseOn runs a check case on session sess.
func (c *cell) runCaseOn(ctx context.Context, sess drivers.Session, sc *plan.Scenario, q *boundQuery, cc plan.CheckCase) (checks.Outcome, *caseAnswer) {
	if q == nil {
		return checks.Outcome{Status: checks.Fail, Detail: "the check's query is not declared"}, nil
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
		return checks.Outcome{Status: checks.Fail, Detail: err.Error()}, nil
	}
	st, err := sess.Prepare(ctx, q.bound.SQL)
	if err != nil {
		return checks.Outcome{Status: checks.Fail, Detail: fmt.Sprintf("preparing query %s: %v", q.name, err)}, nil
	}
	defer st.Close()
	cctx, cancel := context.WithTimeout(ctx, sc.Sampling.Check)
	defer cancel()
	var rows [][]any
	args := binder.Client(c.pc.Scale.Gen.Seed, 0).Next()
	_, err = st.Query(cctx, args, &rows)
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			return checks.Outcome{Status: checks.Skip, Detail: fmt.Sprintf("no answer within %s", sc.Sampling.Check)}, nil
		}
		return checks.Outcome{Status: checks.Fail, Detail: fmt.Sprintf("query %s failed: %v", q.name, err)}, nil
	}
	cols := columnsOf(st)
	if pq := c.pc.Queries[q.name]; pq != nil && pq.Answer != "" && pq.Answer != answer.Rows {
		// The store answers in one value: its rows are what it decodes to.
		if cols, rows, err = answer.Decode(pq.Answer, rows, pq.Columns); err != nil {
			return checks.Outcome{Status: checks.Fail, Detail: fmt.Sprintf("query %s: its %s answer does not decode: %v", q.name, pq.Answer, err)}, nil
		}
	}
	return checks.Compare(cols, rows, cc.Expect), &caseAnswer{params: namedParams(q.bound.Names, args), columns: cols, rows: rows}
}

// writeState names the writes committed to the store so far, so that
// answers are compared across backends only between equal stores; a write
// in doubt makes the store's state unknown (not comparable).
func (c *cell) writeState() (string, bool) {
	var sb strings.Builder
	for _, g := range c.writes.order {
		commits, doubt := c.writeSeq(g).Snapshot()
		if len(doubt) > 0 {
			return "", false
		}
		// The set of ks, whatever order they committed in.
		var sum uint64
		for _, cm := range commits {
			sum += uint64(cm.K)*0x9e3779b97f4a7c15 + 1
			for i, d := range cm.D { // a transaction's deltas may come from its reads
				sum += (uint64(d) + uint64(i)) * 0xbf58476d1ce4e5b9
			}
		}
		fmt.Fprintf(&sb, "%s=%d/%x;", g, len(commits), sum)
	}
	return sb.String(), true
}

// columnsOf returns the result's column names.
func columnsOf(st drivers.Stmt) []string {
	if cn, ok := st.(drivers.ColumnNamer); ok {
		return cn.Columns()
	}
	return nil
}
