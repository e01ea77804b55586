package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/ops"
)

var _ kind.OpEnv = (*pointEnv)(nil)

// OpenOps implements kind.OpEnv.
func (e *pointEnv) OpenOps(ctx context.Context, list []kind.Operation, index int, seed uint64) (kind.OpClient, error) {
	cl, err := e.c.openOps(ctx, list, index, seed, !e.sc.Writes)
	if err != nil {
		return nil, err
	}
	if err := e.addWriters(ctx, cl, list); err != nil {
		cl.Close()
		return nil, err
	}
	e.mu.Lock()
	e.clients = append(e.clients, cl.counted)
	e.mu.Unlock()
	return cl, nil
}

// OpenOps opens one client of a stream of operations in a worker
// process (reads only: write operations run in the coordinator).
func (w *WorkerCell) OpenOps(ctx context.Context, list []kind.Operation, index int, seed uint64) (kind.OpClient, error) {
	if kind.OpsWrite(list) {
		return nil, errors.New("write operations run in the coordinator, not in workers")
	}
	return w.c.openOps(ctx, list, index, seed, w.reader)
}

// opClient is one client of a stream of operations: one session, each
// read operation's statement prepared on it with its own parameters.
type opClient struct {
	*ops.Client
	counted *client   // the session and the live progress counters
	runs    []ops.Run // the client's operations, as ops.Client runs them
	closers []func()  // run in reverse order by Close
}

func (c *cell) openOps(ctx context.Context, list []kind.Operation, index int, seed uint64, reader bool) (*opClient, error) {
	s, err := c.clientSession(ctx, index, reader)
	if err != nil {
		return nil, err
	}
	base := &client{session: s}
	runs := make([]ops.Run, len(list))
	for i, o := range list {
		if o.IsWrite() {
			continue // addWriters: the writing session and the numbering are the point's
		}
		q := c.queries[o.Query]
		if q == nil {
			base.Close()
			return nil, fmt.Errorf("operation %s: no query %q", o.Name, o.Query)
		}
		if q.binder == nil {
			base.Close()
			return nil, fmt.Errorf("operation %s: query %s: a parameter has no value in the query's params", o.Name, o.Query)
		}
		st, err := s.Prepare(ctx, q.bound.SQL)
		if err != nil {
			base.Close()
			return nil, fmt.Errorf("client %d: operation %s: preparing query %s: %w", index, o.Name, o.Query, err)
		}
		base.stmts = append(base.stmts, st)
		args := q.binder.Client(seed, index)
		runs[i] = base.runner(o.Query, st, args.Next)
	}
	cl := &opClient{Client: ops.New(kind.Weights(list), runs, seed, index), counted: base, runs: runs}
	cl.closers = append(cl.closers, base.Close)
	cl.OnClose = func() {
		for i := len(cl.closers) - 1; i >= 0; i-- {
			cl.closers[i]()
		}
	}
	return cl, nil
}

// addWriters gives the client its write operations: each numbers its
// writes from the cell's sequence of its generator and runs them on the
// client's own session, or on a writing session it shares with the
// point's other clients where the database lets fewer connections write
// than there are clients (SQLite, DuckDB: one) or the stream says
// `writers`.
func (e *pointEnv) addWriters(ctx context.Context, cl *opClient, list []kind.Operation) error {
	if !kind.OpsWrite(list) {
		return nil
	}
	c := e.c
	writes := c.pc.Scale.Writes
	limit, _ := drivers.WriteLimit(c.drv, c.cfg.Options) // as plan says it
	for i, o := range list {
		if !o.IsWrite() {
			continue
		}
		if _, ok := writes.Decl(o.Write); !ok {
			return fmt.Errorf("operation %s: the dataset declares no write %q", o.Name, o.Write)
		}
		w := &opWriter{op: o, writes: writes, seq: c.writeSeq(o.Write), gen: c.pc.Scale.Gen, classify: c.classifyError}
		e.mu.Lock()
		if e.contention == nil {
			e.contention = map[string]*opContention{}
		}
		oc := e.contention[o.Name]
		if oc == nil {
			oc = &opContention{}
			e.contention[o.Name] = oc
		}
		oc.clients++
		e.mu.Unlock()
		w.counts, w.retries, w.aborted = &oc.counts, &oc.retries, &oc.aborted
		n := o.Writers
		if limit > 0 && (n == 0 || n > limit) {
			n = limit
		}
		if n > 0 {
			p, err := e.pool(ctx, n)
			if err != nil {
				return err
			}
			w.pool = p
			cl.closers = append(cl.closers, p.unref)
		} else {
			tx, err := c.prepareWrite(ctx, cl.counted.session, o)
			if err != nil {
				return err
			}
			w.own = tx
			cl.closers = append(cl.closers, tx.Close)
		}
		cl.runs[i] = cl.counted.counting(w.run)
	}
	return nil
}

// counting counts run's calls and errors for the live progress.
func (cl *client) counting(run ops.Run) ops.Run {
	return func(ctx context.Context) error {
		err := run(ctx)
		cl.calls.Add(1)
		if err != nil {
			cl.errs.Add(1)
		}
		return err
	}
}

// runner is one read operation of the client: its statement with the
// arguments next makes, counted for the live progress; a lost connection
// loses the client, as Call does.
func (cl *client) runner(query string, st drivers.Stmt, next func() []any) ops.Run {
	return func(ctx context.Context) error {
		if cl.lost != nil {
			return cl.lost
		}
		_, err := st.Query(ctx, next(), nil)
		cl.calls.Add(1)
		if err != nil {
			cl.errs.Add(1)
			err = fmt.Errorf("query %s: %w", query, err)
			if ctx.Err() == nil && errors.Is(err, drivers.ErrConnLost) {
				cl.lost = fmt.Errorf("%w: %w", measure.ErrClientLost, err)
				return cl.lost
			}
		}
		return err
	}
}
