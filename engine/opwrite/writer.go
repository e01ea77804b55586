// Package opwrite runs one client's write operation: it numbers the
// operation's writes from the cell's sequence of its generator, binds
// write k and runs it as one transaction (engine/writetx), retrying a
// contention failure up to max_tries times, on the client's own session
// or on one of a pool of writing sessions the point's clients share;
// failed tries, retries and intended aborts are tallied per operation.
// It knows no cell and no scenario: the runner hands it the sequence,
// the sessions and the statements.
package opwrite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/writetx"
)

// Statements binds a query's statements for the backend.
type Statements func(query string) ([]kind.Statement, error)

// Prepare prepares operation o's statements on s, the parameters its
// writes may bind those of gen's write generator o.Write in ws.
func Prepare(ctx context.Context, s drivers.Session, o kind.Operation, ws *writes.Writes, gen *datagen.Dataset, statements Statements) (*writetx.Tx, error) {
	if decl, _ := ws.Decl(o.Write); len(decl.Steps) > 0 {
		if err := NeedsRead(decl, o); err != nil {
			return nil, err
		}
	}
	return writetx.Prepare(ctx, s, o, statements, writetx.ParamsOf(ws, o.Write, gen))
}

// Tally is one write operation's failed tries by class, its retries and
// its intended aborts, over the clients that run it in a point.
type Tally struct {
	counts  ops.Contention
	retries atomic.Int64
	aborted atomic.Int64 // intended aborts (abort_if), not errors
	Clients int
}

// String is the contention log's account of the operation.
func (t *Tally) String() string {
	return fmt.Sprintf("clients=%d %s retries=%d%s", t.Clients, t.counts.String(), t.retries.Load(), abortedField(t))
}

// Pool is the writing sessions a point's clients share when the
// database lets fewer connections write than there are clients: a write
// takes one for its transaction and gives it back.
type Pool struct {
	conns   chan *pooledWriter
	prepare func(context.Context, drivers.Session, kind.Operation) (*writetx.Tx, error)
	mu      sync.Mutex
	all     []*pooledWriter
	refs    int
}

type pooledWriter struct {
	sess drivers.Session
	txs  map[string]*writetx.Tx // by operation name, prepared on first use
}

// OpenPool opens n writing sessions with open; prepare prepares an
// operation on one of them when it first writes there. The pool is held
// by no one until Hold.
func OpenPool(ctx context.Context, n int, open func(context.Context) (drivers.Session, error),
	prepare func(context.Context, drivers.Session, kind.Operation) (*writetx.Tx, error)) (*Pool, error) {
	p := &Pool{conns: make(chan *pooledWriter, n), prepare: prepare}
	for i := 0; i < n; i++ {
		s, err := open(drivers.WithRole(ctx, drivers.RoleWriter))
		if err != nil {
			p.refs = 1
			p.Unref()
			return nil, fmt.Errorf("writer %d: connecting: %w", i, err)
		}
		w := &pooledWriter{sess: s, txs: map[string]*writetx.Tx{}}
		p.all = append(p.all, w)
		p.conns <- w
	}
	return p, nil
}

// Hold takes one client's hold on the pool.
func (p *Pool) Hold() {
	p.mu.Lock()
	p.refs++
	p.mu.Unlock()
}

// Held reports whether a client still holds the pool (its sessions are
// open).
func (p *Pool) Held() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refs > 0
}

// acquire takes a writing session.
func (p *Pool) acquire(ctx context.Context) (*pooledWriter, error) {
	select {
	case w := <-p.conns:
		return w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *Pool) release(w *pooledWriter) { p.conns <- w }

// Unref drops one client's hold; the last closes the sessions.
func (p *Pool) Unref() {
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

// Writer is one client's write operation: it numbers its writes from
// Seq, binds write k and runs it as one transaction, retrying a
// contention failure up to the operation's max_tries times.
type Writer struct {
	Op     kind.Operation
	Writes *writes.Writes
	Seq    *ops.Seq
	Gen    *datagen.Dataset
	Own    *writetx.Tx // the client's own session's statements, or nil
	Pool   *Pool       // shared writing sessions, or nil
	Tally  *Tally      // the operation's, shared by its clients
	// Classify is the driver's reading of a failed try.
	Classify ops.Classifier

	fields map[string]writetx.Field // an insert's parameters
	tx     *txWriter                // a transaction write's state (tx.go)
}

// Run runs the operation's next write.
func (w *Writer) Run(ctx context.Context) error {
	tx := w.Own
	var pw *pooledWriter
	if w.Pool != nil {
		var err error
		if pw, err = w.Pool.acquire(ctx); err != nil {
			return err
		}
		defer w.Pool.release(pw)
		if tx = pw.txs[w.Op.Name]; tx == nil {
			if tx, err = w.Pool.prepare(ctx, pw.sess, w.Op); err != nil {
				return err
			}
			pw.txs[w.Op.Name] = tx
		}
	}
	if w.Writes.IsTx(w.Op.Write) {
		return w.runTx(ctx, tx)
	}
	// Numbered once a session is held: with one writing session the
	// writes commit in the order of k.
	k := w.Seq.Next()
	op, err := w.Writes.Op(w.Op.Write, k)
	if err != nil {
		w.Seq.Fail(k)
		return err
	}
	if op.Insert && w.fields == nil {
		w.fields = map[string]writetx.Field{}
		for i, av := range op.Values {
			info, _ := w.Gen.Attr(av.Attr)
			w.fields[writetx.ParamName(av.Attr)] = writetx.Field{Index: i, Many: info.Many}
		}
	}
	arg := func(name string) any { return writetx.Arg(op, w.fields, name) }
	inDoubt, err := ops.Write(ctx, w.Op.MaxTries, w.Classify, &w.Tally.counts, &w.Tally.retries,
		func() (error, bool) { return tx.Run(ctx, arg) },
		func() { _ = tx.Session.Exec(context.WithoutCancel(ctx), "ROLLBACK") })
	switch {
	case err == nil:
		w.Seq.Commit(k, op.E)
		return nil
	case inDoubt:
		w.Seq.InDoubt(k, op.E)
	default:
		w.Seq.Fail(k)
	}
	return fmt.Errorf("write %d of %s: %w", k, w.Op.Write, err)
}
