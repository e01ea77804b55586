package runner

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/opwrite"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// writeSeq returns the cell's numbering of generator's writes, starting
// after those an earlier scenario of the run committed.
func (c *cell) writeSeq(generator string) *ops.Seq {
	c.seqMu.Lock()
	defer c.seqMu.Unlock()
	if c.seqs == nil {
		c.seqs = map[string]*ops.Seq{}
	}
	s := c.seqs[generator]
	if s == nil {
		s = &ops.Seq{}
		c.seqs[generator] = s
	}
	return s
}

// Count implements params.Live: the number of entities of kind a
// parameter may draw, the loaded ones and the inserted ones whose insert
// (and every insert before it) finished, as YCSB's acknowledged counter
// has it. A kind nothing inserts keeps its loaded count.
func (c *cell) Count(kind string) func() int64 {
	loaded := c.pc.Scale.Gen.Count(kind)
	writes := c.pc.Scale.Writes
	for _, g := range writes.Names() {
		if d, _ := writes.Decl(g); d.Insert && d.Entity == kind {
			s := c.writeSeq(g)
			return func() int64 { return loaded + s.Visible() }
		}
	}
	return func() int64 { return loaded }
}

// statements binds a query's statements for the cell's backend.
func (c *cell) statements(query string) ([]kind.Statement, error) {
	q := c.pc.Queries[query]
	if q == nil {
		return nil, fmt.Errorf("no query %q", query)
	}
	var out []kind.Statement
	for _, text := range sqltext.Statements(q.SQL) {
		b, err := sqltext.Bind(text, c.be.Placeholder)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", query, err)
		}
		out = append(out, kind.Statement{SQL: b.SQL, Names: b.Names, Answer: q.Answer, Columns: q.Columns})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("query %s holds no statement", query)
	}
	return out, nil
}

// prepareWrite prepares operation o's statements on s.
func (c *cell) prepareWrite(ctx context.Context, s drivers.Session, o kind.Operation) (*writetx.Tx, error) {
	return opwrite.Prepare(ctx, s, o, c.pc.Scale.Writes, c.pc.Scale.Gen, c.statements)
}

// pool returns the point's writer pool of n sessions, opening it on first
// use; each caller holds it until Unref.
func (e *pointEnv) pool(ctx context.Context, n int) (*opwrite.Pool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writers == nil || !e.writers.Held() {
		p, err := opwrite.OpenPool(ctx, n, e.c.be.Session, e.c.prepareWrite)
		if err != nil {
			return nil, err
		}
		e.writers = p
	}
	e.writers.Hold()
	return e.writers, nil
}

// finishPoint logs what the point's write operations met: failed tries
// by contention class and retries, per operation, in logs/contention.log.
func (c *cell) finishPoint(env kind.Env) {
	var e *pointEnv
	switch x := env.(type) {
	case *pointEnv:
		e = x
	case *workerEnv:
		e = x.pointEnv
	default:
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	names := make([]string, 0, len(e.contention))
	for n := range e.contention {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		oc := e.contention[n]
		e.Log("contention", "%s op=%s %s\n", contentionKey(e), n, oc)
	}
	e.contention = nil
}

func contentionKey(e *pointEnv) string {
	r := e.Row()
	return fmt.Sprintf("%s %s %s %s", time.Now().UTC().Format(time.RFC3339), r.Scenario, r.Backend, r.Scale)
}
