// Package client is a point's client: one session with its queries
// prepared, called in turn (a mix) or drawn by weight (a stream of
// operations), each call's parameters drawn from the client's own seeded
// stream and its calls and errors counted for the live progress. A
// connection lost loses the client for the rest of the point. It knows no
// cell: the runner hands it the session and the queries bound.
package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/params"
)

// Query is a query bound for the backend, with its parameters' binder
// (nil when a parameter is left to the checks).
type Query struct {
	SQL    string
	Binder *params.Binder
}

// Queries returns the query of that name, false when there is none.
type Queries func(name string) (Query, bool)

// Client is one connection with the statements of its mix prepared.
type Client struct {
	session drivers.Session
	stmts   []drivers.Stmt
	names   []string // the queries' names, for errors
	args    []*params.Client
	next    int
	// calls and errs feed the live progress: one uncontended add per
	// call on the client's own counters.
	calls, errs atomic.Int64
	lost        error // set once the connection is gone: every later call returns it
}

// Open prepares the queries of mix on s for client index, its parameters
// drawn from seed; the client starts at its index in the mix. On an
// error s is closed.
func Open(ctx context.Context, s drivers.Session, mix []string, queries Queries, index int, seed uint64) (*Client, error) {
	cl := &Client{session: s, next: index % len(mix)}
	for _, qn := range mix {
		q, ok := queries(qn)
		if !ok {
			cl.Close()
			return nil, fmt.Errorf("no query %q", qn)
		}
		if q.Binder == nil {
			cl.Close()
			return nil, fmt.Errorf("query %s: a parameter has no value in the query's params", qn)
		}
		st, err := s.Prepare(ctx, q.SQL)
		if err != nil {
			cl.Close()
			return nil, fmt.Errorf("client %d: preparing %s: %w", index, qn, err)
		}
		cl.stmts = append(cl.stmts, st)
		cl.names = append(cl.names, qn)
		cl.args = append(cl.args, q.Binder.Client(seed, index))
	}
	return cl, nil
}

// Close closes the statements and the session.
func (cl *Client) Close() {
	for _, s := range cl.stmts {
		s.Close()
	}
	cl.session.Close()
}

// Session is the client's connection.
func (cl *Client) Session() drivers.Session { return cl.session }

// Counts are the client's calls and errors so far.
func (cl *Client) Counts() (calls, errs int64) { return cl.calls.Load(), cl.errs.Load() }

// Call runs the next query of the client's mix; rows are only counted.
func (cl *Client) Call(ctx context.Context) error {
	i := cl.next
	cl.next++
	if cl.next == len(cl.stmts) {
		cl.next = 0
	}
	return cl.call(ctx, cl.names[i], cl.stmts[i], cl.args[i].Next)
}

// call runs st with the arguments next makes, counted; a lost connection
// loses the client.
func (cl *Client) call(ctx context.Context, query string, st drivers.Stmt, next func() []any) error {
	if cl.lost != nil {
		return cl.lost
	}
	_, err := st.Query(ctx, next(), nil)
	cl.calls.Add(1)
	if err != nil {
		cl.errs.Add(1)
		err = fmt.Errorf("query %s: %w", query, err)
		if ctx.Err() == nil && errors.Is(err, drivers.ErrConnLost) {
			// No reconnect per call against a server that is gone: the
			// client is lost for the rest of the point (measure ends it).
			cl.lost = fmt.Errorf("%w: %w", measure.ErrClientLost, err)
			return cl.lost
		}
	}
	return err
}

// Counting counts run's calls and errors for the live progress.
func (cl *Client) Counting(run ops.Run) ops.Run {
	return func(ctx context.Context) error {
		err := run(ctx)
		cl.calls.Add(1)
		if err != nil {
			cl.errs.Add(1)
		}
		return err
	}
}

// Ops is one client of a stream of operations: one session, each read
// operation's statement prepared on it with its own parameters.
type Ops struct {
	*ops.Client
	counted *Client   // the session and the live progress counters
	runs    []ops.Run // the client's operations, as ops.Client runs them
	closers []func()  // run in reverse order by Close
}

// OpenOps prepares the read operations of list on s for client index;
// its write operations run nothing until SetWrite gives them their run.
// On an error s is closed.
func OpenOps(ctx context.Context, s drivers.Session, list []kind.Operation, queries Queries, index int, seed uint64) (*Ops, error) {
	base := &Client{session: s}
	runs := make([]ops.Run, len(list))
	for i, o := range list {
		if o.IsWrite() {
			continue // SetWrite: the writing session and the numbering are the point's
		}
		q, ok := queries(o.Query)
		if !ok {
			base.Close()
			return nil, fmt.Errorf("operation %s: no query %q", o.Name, o.Query)
		}
		if q.Binder == nil {
			base.Close()
			return nil, fmt.Errorf("operation %s: query %s: a parameter has no value in the query's params", o.Name, o.Query)
		}
		st, err := s.Prepare(ctx, q.SQL)
		if err != nil {
			base.Close()
			return nil, fmt.Errorf("client %d: operation %s: preparing query %s: %w", index, o.Name, o.Query, err)
		}
		base.stmts = append(base.stmts, st)
		args := q.Binder.Client(seed, index)
		query := o.Query
		runs[i] = func(ctx context.Context) error { return base.call(ctx, query, st, args.Next) }
	}
	cl := &Ops{Client: ops.New(kind.Weights(list), runs, seed, index), counted: base, runs: runs}
	cl.closers = append(cl.closers, base.Close)
	cl.OnClose = func() {
		for i := len(cl.closers) - 1; i >= 0; i-- {
			cl.closers[i]()
		}
	}
	return cl, nil
}

// Counted is the client's session and counters.
func (cl *Ops) Counted() *Client { return cl.counted }

// SetWrite makes run, counted, operation i of the client.
func (cl *Ops) SetWrite(i int, run ops.Run) { cl.runs[i] = cl.counted.Counting(run) }

// OnClosed runs f when the client closes, before what was opened before it.
func (cl *Ops) OnClosed(f func()) { cl.closers = append(cl.closers, f) }
