package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/params"
)

// sqliteSession is a session of a new SQLite store, for a client to
// close.
func sqliteSession(t *testing.T) (drivers.Backend, drivers.Session) {
	t.Helper()
	be := drivertest.Open(t, sqlite.New(), drivers.Config{})
	s, err := be.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return be, s
}

// queries are two queries with a constant parameter each, one with
// none (a parameter left to the checks) and one that does not prepare.
func queries(t *testing.T) Queries {
	t.Helper()
	bind := func(v any) *params.Binder {
		b, err := params.New(nil, []string{"v"}, map[string]params.Spec{"v": {Kind: params.Const, Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	qs := map[string]Query{
		"one":    {SQL: "SELECT ?", Binder: bind(1)},
		"two":    {SQL: "SELECT ? + 1", Binder: bind(1)},
		"nobind": {SQL: "SELECT ?"},
		"bad":    {SQL: "SELECT FROM WHERE", Binder: bind(1)},
	}
	return func(n string) (Query, bool) { q, ok := qs[n]; return q, ok }
}

// A mix's client starts at its index and calls the queries in turn,
// counting each call; the errors of Open name the query.
func TestOpenAndCall(t *testing.T) {
	ctx := context.Background()
	_, s := sqliteSession(t)
	cl, err := Open(ctx, s, []string{"one", "two"}, queries(t), 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if cl.next != 1 {
		t.Errorf("client 1 of a mix of 2 starts at query %d, want 1", cl.next)
	}
	for i := 0; i < 5; i++ {
		if err := cl.Call(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, errs := cl.Counts(); n != 5 || errs != 0 {
		t.Errorf("counts %d, %d errors; want 5, 0", n, errs)
	}
	for _, tc := range []struct{ mix, want string }{
		{"missing", `no query "missing"`},
		{"nobind", "query nobind: a parameter has no value"},
		{"bad", "client 0: preparing bad"},
	} {
		_, s := sqliteSession(t)
		if _, err := Open(ctx, s, []string{"one", tc.mix}, queries(t), 0, 7); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mix with %s: %v, want %q", tc.mix, err, tc.want)
		}
	}
}

// lostStmt is a statement whose connection is gone.
type lostStmt struct{ calls *int }

func (l lostStmt) Query(context.Context, []any, *[][]any) (int64, error) {
	*l.calls++
	return 0, fmt.Errorf("read: %w", drivers.ErrConnLost)
}
func (lostStmt) Close() error { return nil }

// A lost connection loses the client: that call and every later one
// return measure.ErrClientLost, and the statement is not called again.
func TestLostConnection(t *testing.T) {
	ctx := context.Background()
	calls := 0
	b, err := params.New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := &Client{stmts: []drivers.Stmt{lostStmt{&calls}}, names: []string{"q"}, args: []*params.Client{b.Client(1, 0)}}
	for i := 0; i < 3; i++ {
		if err := cl.Call(ctx); !errors.Is(err, measure.ErrClientLost) || !errors.Is(err, drivers.ErrConnLost) {
			t.Fatalf("call %d: %v, want the client lost", i, err)
		}
	}
	if n, errs := cl.Counts(); calls != 1 || n != 1 || errs != 1 {
		t.Errorf("statement called %d times, counted %d calls and %d errors; want 1 each", calls, n, errs)
	}
}

// A stream of operations prepares its reads; a write operation runs what
// SetWrite gives it, counted, and what OnClosed registers runs at Close.
func TestOpenOps(t *testing.T) {
	ctx := context.Background()
	_, s := sqliteSession(t)
	list := []kind.Operation{{Name: "r", Query: "one", Weight: 1}, {Name: "w", Write: "gen", Weight: 1}}
	cl, err := OpenOps(ctx, s, list, queries(t), 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	wrote, closed := 0, false
	cl.SetWrite(1, func(context.Context) error { wrote++; return errors.New("conflict") })
	cl.OnClosed(func() { closed = true })
	var errs int
	for i := 0; i < 40; i++ {
		if cl.runs[i%2](ctx) != nil {
			errs++
		}
	}
	if n, e := cl.Counted().Counts(); n != 40 || e != 20 || wrote != 20 || errs != 20 {
		t.Errorf("counted %d calls, %d errors, %d writes, %d failed; want 40, 20, 20, 20", n, e, wrote, errs)
	}
	cl.Close()
	if !closed {
		t.Error("OnClosed's function did not run at Close")
	}
	_, s2 := sqliteSession(t)
	if _, err := OpenOps(ctx, s2, []kind.Operation{{Name: "r", Query: "nobind"}}, queries(t), 0, 3); err == nil || !strings.Contains(err.Error(), "operation r: query nobind") {
		t.Errorf("an operation whose query lacks a parameter: %v", err)
	}
}
