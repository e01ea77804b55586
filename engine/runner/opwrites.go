package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
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

// writeTx is one write operation's statements prepared on one session.
type writeTx struct {
	sess  drivers.Session
	read  drivers.Stmt // read-modify-write: run first
	rnams []string
	stmts []drivers.Stmt
	names [][]string
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
// bind: :e, :tx and :k, and :a and :v for an update, or for an insert one
// per attribute of the new entity, named after its ident (ycsb/field0 ->
// :ycsb_field0).
func (c *cell) writeParams(o kind.Operation) (map[string]bool, string) {
	decl, _ := c.pc.Scale.Writes.Decl(o.Write)
	if !decl.Insert {
		return map[string]bool{"e": true, "a": true, "v": true, "tx": true, "k": true}, writeParamText
	}
	ok := map[string]bool{"e": true, "tx": true, "k": true}
	names := []string{":e", ":tx", ":k"}
	for _, a := range c.pc.Scale.Gen.Attrs() {
		if a.Entity == decl.Entity {
			ok[ParamName(a.Ident)] = true
			names = append(names, ":"+ParamName(a.Ident))
		}
	}
	return ok, "an insert binds " + strings.Join(names, ", ")
}

// ParamName is the SQL parameter an insert binds an attribute's value to:
// its ident with every character that is not a letter, a digit or _
// replaced by _.
func ParamName(ident string) string {
	b := []byte(ident)
	for i, ch := range b {
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// prepareWrite prepares operation o's statements on s.
func (c *cell) prepareWrite(ctx context.Context, s drivers.Session, o kind.Operation) (*writeTx, error) {
	tx := &writeTx{sess: s}
	allowed, allowedText := c.writeParams(o)
	prep := func(query string, read bool) error {
		sts, err := c.statements(query)
		if err != nil {
			return err
		}
		if read && len(sts) != 1 {
			return fmt.Errorf("read query %s of a read-modify-write must be one statement, has %d", query, len(sts))
		}
		for _, st := range sts {
			for _, n := range st.Names {
				if !allowed[n] {
					return fmt.Errorf("query %s uses :%s; %s", query, n, allowedText)
				}
			}
			ps, err := s.Prepare(ctx, st.SQL)
			if err != nil {
				return fmt.Errorf("query %s: preparing %q: %w", query, st.SQL, err)
			}
			if read {
				tx.read, tx.rnams = ps, st.Names
			} else {
				tx.stmts = append(tx.stmts, ps)
				tx.names = append(tx.names, st.Names)
			}
		}
		return nil
	}
	if o.Read != "" {
		if err := prep(o.Read, true); err != nil {
			tx.closeStmts()
			return nil, fmt.Errorf("operation %s: %w", o.Name, err)
		}
	}
	if err := prep(o.Query, false); err != nil {
		tx.closeStmts()
		return nil, fmt.Errorf("operation %s: %w", o.Name, err)
	}
	return tx, nil
}

func (tx *writeTx) closeStmts() {
	if tx.read != nil {
		tx.read.Close()
	}
	for _, st := range tx.stmts {
		st.Close()
	}
}

// run runs the transaction with args (by parameter name). atCommit is
// set when COMMIT itself failed.
func (tx *writeTx) run(ctx context.Context, arg func(string) any) (err error, atCommit bool) {
	if err := tx.sess.Exec(ctx, "BEGIN"); err != nil {
		return err, false
	}
	if tx.read != nil {
		if _, err := tx.read.Query(ctx, bindArgs(tx.rnams, arg), nil); err != nil {
			return err, false
		}
	}
	for i, st := range tx.stmts {
		if _, err := st.Query(ctx, bindArgs(tx.names[i], arg), nil); err != nil {
			return err, false
		}
	}
	if err := tx.sess.Exec(ctx, "COMMIT"); err != nil {
		return err, true
	}
	return nil, false
}

func bindArgs(names []string, arg func(string) any) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = arg(n)
	}
	return out
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
	txs  map[string]*writeTx // by operation name, prepared on first use
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
			tx.closeStmts()
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
			w := &pooledWriter{sess: s, txs: map[string]*writeTx{}}
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
	own     *writeTx    // the client's own session's statements, or nil
	pool    *writerPool // shared writing sessions, or nil
	counts  *ops.Contention
	retries *atomic.Int64
	fields  map[string]insertField // an insert's parameters
	gen     *datagen.Dataset
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
	// Numbered once a session is held: with one writing session the
	// writes commit in the order of k.
	k := w.seq.Next()
	op, err := w.writes.Op(w.op.Write, k)
	if err != nil {
		w.seq.Fail(k)
		return err
	}
	if op.Insert && w.fields == nil {
		w.fields = map[string]insertField{}
		for i, av := range op.Values {
			info, _ := w.gen.Attr(av.Attr)
			w.fields[ParamName(av.Attr)] = insertField{i, info.Many}
		}
	}
	arg := func(name string) any { return writeArg(op, w.fields, name) }
	inDoubt, err := ops.Write(ctx, w.op.MaxTries, w.counts, w.retries,
		func() (error, bool) { return tx.run(ctx, arg) },
		func() { _ = tx.sess.Exec(context.WithoutCancel(ctx), "ROLLBACK") })
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

// The parameters an update's statements may use.
const writeParamText = "an update binds :e (the entity), :a (the attribute id), :v (the value), :tx (the transaction id) and :k (the write's number)"

// insertField is an insert's attribute parameter: its index in
// WriteOp.Values, and whether the attribute is cardinality many.
type insertField struct {
	i    int
	many bool
}

// writeArg is parameter name of write op; fields maps an insert's
// attribute parameters to op.Values. A cardinality-many attribute binds
// its values as a JSON array.
func writeArg(op writes.Op, fields map[string]insertField, name string) any {
	switch name {
	case "e":
		return op.E
	case "a":
		return int64(op.A)
	case "v":
		return op.Value.Any()
	case "tx":
		return op.Tx
	case "k":
		return op.K
	}
	if f, ok := fields[name]; ok {
		vals := op.Values[f.i].Values
		if !f.many {
			if len(vals) == 0 {
				return nil
			}
			return vals[0].Any()
		}
		out := make([]any, len(vals))
		for j, v := range vals {
			out[j] = v.Any()
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	return nil
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
		e.Log("contention", "%s op=%s clients=%d %s retries=%d\n", contentionKey(e), n, oc.clients, oc.counts.String(), oc.retries.Load())
	}
	e.contention = nil
}

func contentionKey(e *pointEnv) string {
	r := e.Row()
	return fmt.Sprintf("%s %s %s %s", time.Now().UTC().Format(time.RFC3339), r.Scenario, r.Backend, r.Scale)
}
