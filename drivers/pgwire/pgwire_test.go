package pgwire

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers/internal/pgtest"
)

// testDSN is the test server's DSN (skipping without one). The tests
// create nothing on it.
func testDSN(t testing.TB) string { t.Helper(); return pgtest.DSN(t) }

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// testDial is a transport a test session's calls run on.
type testDial struct {
	name string
	dial pgconn.DialFunc // nil: Go's poller
	raw  bool            // sessions are counted by RawSessionOpened
}

var (
	rawDial   = testDial{"raw", DialRaw, RawAvailable}
	testDials = []testDial{
		{"poller", nil, false},
		{"blocking", DialBlocking, false},
		{"auto", DialAuto(func() bool { return true }), false},
		rawDial,
	}
)

// testSession is a connection and its Counter, as a driver's session
// holds them: the smallest user of this package's API.
type testSession struct {
	t    testing.TB
	cfg  *pgx.ConnConfig
	conn *pgx.Conn
	c    Counter
	seq  int
}

// newTestSession connects on d, closing at the test's end.
func newTestSession(t testing.TB, d testDial) *testSession {
	t.Helper()
	cfg, err := pgx.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.dial != nil {
		cfg.DialFunc = d.dial
	}
	cfg.BuildContextWatcherHandler = CancelHandler(5*time.Second, nil)
	s := &testSession{t: t, cfg: cfg}
	s.c.CancelDelay = 5 * time.Second
	s.reconnect()
	if d.raw {
		RawSessionOpened()
	}
	t.Cleanup(func() {
		s.c.Close()
		if s.conn != nil {
			closeQuietly(s.conn)
		}
		if d.raw {
			RawSessionClosed()
		}
	})
	return s
}

// reconnect replaces the connection, as a driver does after a LostError.
func (s *testSession) reconnect() {
	s.t.Helper()
	if s.conn != nil {
		closeQuietly(s.conn)
	}
	s.c.Reset()
	c, err := pgx.ConnectConfig(testCtx(s.t), s.cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	s.conn = c
}

// prepare prepares sql on the server for counted calls.
func (s *testSession) prepare(sql string) *Statement {
	s.t.Helper()
	if err := s.c.HandOver(s.conn); err != nil {
		s.t.Fatal(err)
	}
	s.seq++
	name := "t" + strconv.Itoa(s.seq)
	sd, err := s.conn.Prepare(testCtx(s.t), name, sql)
	if err != nil {
		s.t.Fatalf("prepare %q: %v", sql, err)
	}
	return &Statement{Name: name, Desc: sd}
}

// count runs st as a counted call, which must not need pgx's path.
func (s *testSession) count(ctx context.Context, st *Statement, args ...any) (int64, error) {
	s.t.Helper()
	n, ok, err := s.c.Query(ctx, s.conn, st, args)
	if !ok {
		s.t.Fatalf("the counted call went to pgx's path (args %v)", args)
	}
	return n, err
}

// pgxExec runs sql through pgx, after the hand-over.
func (s *testSession) pgxExec(ctx context.Context, sql string) error {
	if err := s.c.HandOver(s.conn); err != nil {
		return err
	}
	_, err := s.conn.Exec(ctx, sql)
	return err
}

// TestCounted: counted calls count rows (or, without rows, the rows
// affected), report the server's errors and leave the connection usable,
// on every transport.
func TestCounted(t *testing.T) {
	testDSN(t)
	for _, d := range testDials {
		t.Run(d.name, func(t *testing.T) {
			s := newTestSession(t, d)
			ctx := testCtx(t)
			if err := s.c.Exec(ctx, s.conn, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if err := s.pgxExec(ctx, "CREATE TEMP TABLE t (x int)"); err != nil {
				t.Fatal(err)
			}
			ins := s.prepare("INSERT INTO t SELECT generate_series(1, $1::int)")
			sel := s.prepare("SELECT x FROM t WHERE x > $1")
			div := s.prepare("SELECT 1 / ($1::int - 1)")
			for _, c := range []struct {
				st   *Statement
				arg  int64
				want int64
			}{{ins, 5, 5}, {sel, 1, 4}, {sel, 9, 0}, {div, 2, 1}} {
				if n, err := s.count(ctx, c.st, c.arg); err != nil || n != c.want {
					t.Errorf("%s(%d): %d rows, %v; want %d", c.st.Name, c.arg, n, err, c.want)
				}
			}
			if err := s.c.Exec(ctx, s.conn, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			_, err := s.count(ctx, div, int64(1))
			var pgErr *pgconn.PgError
			var lost *LostError
			if !errors.As(err, &pgErr) || pgErr.Code != "22012" || errors.As(err, &lost) {
				t.Errorf("division by zero: %v; want the server's 22012, the connection kept", err)
			}
			if n, err := s.count(ctx, sel, int64(3)); err != nil || n != 2 {
				t.Errorf("after the error: %d rows, %v; want 2", n, err)
			}
			simple := Simple("SELECT x FROM t WHERE x > $1 AND $2 = 'it''s'")
			if n, err := s.count(ctx, &simple, int64(2), "it's"); err != nil || n != 3 {
				t.Errorf("simple protocol: %d rows, %v; want 3", n, err)
			}
		})
	}
}

// TestRawProcs checks that raw sessions raise GOMAXPROCS to their number
// plus the spare Ps (none in a worker process) and that closing the last
// one restores it.
func TestRawProcs(t *testing.T) {
	for _, pk := range pgtest.ProcessKinds {
		t.Run(pk.Name, func(t *testing.T) {
			pgtest.AsProcess(t, pk.Client)
			spare := rawSpare
			if pk.Client {
				spare = 0
			}
			before := runtime.GOMAXPROCS(0)
			sessions := before + 1
			for range sessions {
				RawSessionOpened()
			}
			if got, want := runtime.GOMAXPROCS(0), sessions+spare; got != want {
				t.Errorf("GOMAXPROCS with %d raw sessions = %d, want %d", sessions, got, want)
			}
			for range sessions {
				RawSessionClosed()
			}
			if got := runtime.GOMAXPROCS(0); got != before {
				t.Errorf("GOMAXPROCS after the sessions closed = %d, want %d restored", got, before)
			}
		})
	}
}

func TestSplitSQL(t *testing.T) {
	cases := []struct {
		sql  string
		want []any
	}{
		{"SELECT 1", []any{"SELECT 1"}},
		{"SELECT $1, $12", []any{"SELECT ", 1, ", ", 12}},
		{"a = '$1' AND b = $2", []any{"a = '$1' AND b = ", 2}},
		{"a = 'x''$1' || $1", []any{"a = 'x''$1' || ", 1}},
		{`"$1" = $1`, []any{`"$1" = `, 1}},
		{"E'\\'$1' = $1", []any{"E'\\'$1' = ", 1}},
		{"$$ $1 $$ $t$ $2 $t$ $3", []any{"$$ $1 $$ $t$ $2 $t$ ", 3}},
		{"x -- $1\n$2 /* $3 /* $4 */ $5 */ $6", []any{"x -- $1\n", 2, " /* $3 /* $4 */ $5 */ ", 6}},
		{"$1", []any{1}},
		{"bad \xff $1", nil},
	}
	for _, c := range cases {
		if got := splitSQL(c.sql); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitSQL(%q) = %#v, want %#v", c.sql, got, c.want)
		}
	}
}
