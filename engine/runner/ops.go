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
	counted *client // the session and the live progress counters
}

func (c *cell) openOps(ctx context.Context, list []kind.Operation, index int, seed uint64, reader bool) (*opClient, error) {
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
	base := &client{session: s}
	runs := make([]ops.Run, len(list))
	for i, o := range list {
		if o.IsWrite() {
			base.Close()
			return nil, fmt.Errorf("operation %s: write operations are not supported by this runner yet", o.Name)
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
		runs[i] = base.runner(st, args.Next)
	}
	cl := &opClient{Client: ops.New(kind.Weights(list), runs, seed, index), counted: base}
	cl.OnClose = base.Close
	return cl, nil
}

// runner is one read operation of the client: its statement with the
// arguments next makes, counted for the live progress; a lost connection
// loses the client, as Call does.
func (cl *client) runner(st drivers.Stmt, next func() []any) ops.Run {
	return func(ctx context.Context) error {
		if cl.lost != nil {
			return cl.lost
		}
		_, err := st.Query(ctx, next(), nil)
		cl.calls.Add(1)
		if err != nil {
			cl.errs.Add(1)
			if ctx.Err() == nil && errors.Is(err, drivers.ErrConnLost) {
				cl.lost = fmt.Errorf("%w: %w", measure.ErrClientLost, err)
				return cl.lost
			}
		}
		return err
	}
}
