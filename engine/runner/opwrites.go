package runner

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
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

// writeLimit is how many sessions may write at once on the cell's
// backend (0: no limit).
func (c *cell) writeLimit() int {
	if wl, ok := c.drv.(drivers.WriteLimiter); ok {
		return wl.WritingConnections()
	}
	return 0
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
		out = append(out, kind.Statement{SQL: b.SQL, Names: b.Names})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("query %s holds no statement", query)
	}
	return out, nil
}

// writeParams lists the parameters write operation o's statements may
// bind: an update's, or for an insert one per attribute of the new
// entity.
func (c *cell) writeParams(o kind.Operation) writetx.Params {
	return writetx.ParamsOf(c.pc.Scale.Writes, o.Write, c.pc.Scale.Gen)
}

// prepareWrite prepares operation o's statements on s.
func (c *cell) prepareWrite(ctx context.Context, s drivers.Session, o kind.Operation) (*writetx.Tx, error) {
	if decl, _ := c.pc.Scale.Writes.Decl(o.Write); len(decl.Steps) > 0 {
		if err := needsRead(decl, o); err != nil {
			return nil, err
		}
	}
	return writetx.Prepare(ctx, s, o, c.statements, c.writeParams(o))
}

// writerPool is the writing sessions a point's clients share when the
// database lets fewer connections write than there are clients: a write
// takes one for its transaction and gives it back.
type writerPool struct {
	c     *cell
	conns chan *pooledWriter
	mu    sync.Mutex
	all   []*pooledWriter
	refs  int
}

type pooledWriter struct {
	sess drivers.Session
	txs  map[string]*writetx.Tx // by operation name, prepared on first use
}

// acquire takes a writing session.
func (p *writerPool) acquire(ctx context.Context) (*pooledWriter, error) {
	select {
	case w := <-p.conns:
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *writerPool) release(w *pooledWriter) { p.conns <- w }

// unref drops one client's hold; the last closes the sessions.
func (p *writerPool) unref() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs--
	if p.refs > 0 {
		return
	}
	for _, w := range p.all {
		for _, tx := range w.txs {
			tx.Close()
		}
		w.sess.Close()
	}
	p.all = nil
}

// pool returns the point's writer pool of n sessions, opening it on first
// use; each caller holds a reference until unref.
func (e *pointEnv) pool(ctx context.Context, n int) (*writerPool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writers == nil || e.writers.refs == 0 {
		p := &writerPool{c: e.c, conns: make(chan *pooledWriter, n)}
		for i := 0; i < n; i++ {
			s, err := e.c.be.Session(ctx)
			if err != nil {
				p.refs = 1
				p.unref()
				return nil, fmt.Errorf("writer %d: connecting: %w", i, err)
			}
			w := &pooledWriter{sess: s, txs: map[string]*writetx.Tx{}}
			p.all = append(p.all, w)
			p.conns <- w
		}
		e.writers = p
	}
	e.writers.refs++
	return e.writers, nil
}

// opWriter is one client's write operation: it numbers its writes from the
// cell's sequence, binds write k and runs it as one transaction, retrying
// a contention failure up to max_tries times.
type opWriter struct {
	op      kind.Operation
	writes  *writes.Writes
	seq     *ops.Seq
	own     *writetx.Tx // the client's own session's statements, or nil
	pool    *writerPool // shared writing sessions, or nil
	counts  *ops.Contention
	retries *atomic.Int64
	fields  map[string]writetx.Field // an insert's parameters
	gen     *datagen.Dataset
	aborted *atomic.Int64 // a transaction's intended aborts
	tx      *txWriter     // a transaction write's state (optx.go)
	// classify is the driver's reading of a failed try (cell.classifyError).
	classify ops.Classifier
}

func (w *opWriter) run(ctx context.Context) error {
	tx := w.own
	var pw *pooledWriter
	if w.pool != nil {
		var err error
		if pw, err = w.pool.acquire(ctx); err != nil {
			return err
		}
		defer w.pool.release(pw)
		if tx = pw.txs[w.op.Name]; tx == nil {
			if tx, err = w.pool.c.prepareWrite(ctx, pw.sess, w.op); err != nil {
				return err
			}
			pw.txs[w.op.Name] = tx
		}
	}
	if w.writes.IsTx(w.op.Write) {
		return w.runTx(ctx, tx)
	}
	// Numbered once a session is held: with one writing session the
	// writes commit in the order of k.
	k := w.seq.Next()
	op, err := w.writes.Op(w.op.Write, k)
	if err != nil {
		w.seq.Fail(k)
		return err
	}
	if op.Insert && w.fields == nil {
		w.fields = map[string]writetx.Field{}
		for i, av := range op.Values {
			info, _ := w.gen.Attr(av.Attr)
			w.fields[writetx.ParamName(av.Attr)] = writetx.Field{Index: i, Many: info.Many}
		}
	}
	arg := func(name string) any { return writetx.Arg(op, w.fields, name) }
	inDoubt, err := ops.Write(ctx, w.op.MaxTries, w.classify, w.counts, w.retries,
		func() (error, bool) { return tx.Run(ctx, arg) },
		func() { _ = tx.Session.Exec(context.WithoutCancel(ctx), "ROLLBACK") })
	switch {
	case err == nil:
		w.seq.Commit(k, op.E)
		return nil
	case inDoubt:
		w.seq.InDoubt(k, op.E)
	default:
		w.seq.Fail(k)
	}
	return fmt.Errorf("write %d of %s: %w", k, w.op.Write, err)
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
		e.Log("contention", "%s op=%s clients=%d %s retries=%d%s\n", contentionKey(e), n, oc.clients, oc.counts.String(), oc.retries.Load(), abortedField(oc))
	}
	e.contention = nil
}

func contentionKey(e *pointEnv) string {
	r := e.Row()
	return fmt.Sprintf("%s %s %s %s", time.Now().UTC().Format(time.RFC3339), r.Scenario, r.Backend, r.Scale)
}
