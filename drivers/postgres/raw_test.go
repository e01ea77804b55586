package postgres

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/internal/pgtest"
)

var rawVariants = []variant{{ProtocolExtended, IORaw}, {ProtocolSimple, IORaw}}

// counted runs sql on s with the rows counted: the measured path.
func counted(t *testing.T, ctx context.Context, s drivers.Session, sql string, args ...any) (int64, error) {
	t.Helper()
	st, err := s.Prepare(testCtx(t), sql)
	if err != nil {
		t.Fatalf("Prepare %q: %v", sql, err)
	}
	defer st.Close()
	return st.Query(ctx, args, nil)
}

// TestRawCeiling cuts a counted query stuck in pg_sleep the way the
// runner's watchdog does (cancelling the call's context at the ceiling):
// the call must return, and the same session (same server process) must
// answer its next query within 1 s of the ceiling.
func TestRawCeiling(t *testing.T) {
	testDSN(t)
	const ceiling = 300 * time.Millisecond
	for _, pk := range pgtest.ProcessKinds {
		for _, v := range rawVariants {
			t.Run(pk.Name+"/"+v.String(), func(t *testing.T) {
				pgtest.AsProcess(t, pk.Client)
				rawCeiling(t, v, ceiling)
			})
		}
	}
}

func rawCeiling(t *testing.T, v variant, ceiling time.Duration) {
	b := openTest(t, v, nil)
	s, err := b.Session(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pid := backendPID(t, s)
	slow, err := s.Prepare(testCtx(t), "SELECT pg_sleep(30)")
	if err != nil {
		t.Fatal(err)
	}
	one, err := s.Prepare(testCtx(t), "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 { // the registration of a new context each time, and its reuse
		ctx, cancel := context.WithCancelCause(context.Background())
		start := time.Now()
		timer := time.AfterFunc(ceiling, func() { cancel(errors.New("ceiling")) })
		_, qerr := slow.Query(ctx, nil, nil)
		returned := time.Since(start)
		n, err := one.Query(ctx, nil, nil) // the cut context: fails at once
		if err == nil {
			t.Errorf("round %d: a query on the cancelled context succeeded", round)
		}
		n, err = one.Query(context.Background(), nil, nil)
		reused := time.Since(start)
		timer.Stop()
		cancel(nil)
		if qerr == nil || !errors.Is(qerr, context.Canceled) {
			t.Fatalf("round %d: stuck query: %v; want a cancelled context's error", round, qerr)
		}
		var pgErr *pgconn.PgError
		if !errors.As(qerr, &pgErr) || pgErr.Code != "57014" {
			t.Errorf("round %d: stuck query: %v; want the server's query_canceled (57014)", round, qerr)
		}
		if err != nil || n != 1 {
			t.Fatalf("round %d: next query: %d rows, %v", round, n, err)
		}
		t.Logf("round %d: returned %v, session answered again %v after the start (ceiling %v)", round, returned, reused, ceiling)
		if reused > ceiling+time.Second {
			t.Errorf("round %d: the session answered again %v after the ceiling, want within 1s", round, reused-ceiling)
		}
	}
	if got := backendPID(t, s); got != pid {
		t.Errorf("server process %d after the cuts, was %d: the session reconnected instead of being reused", got, pid)
	}
}

// TestRawGC runs a full GC cycle while sessions are blocked in raw reads
// (pg_sleep): its stop-the-world phases must not wait for the reads to
// return. It runs again in a child process without asynchronous
// preemption, where only the socket's receive timeout ends the reads.
func TestRawGC(t *testing.T) {
	testDSN(t)
	if os.Getenv("MENTAT_SPEC_RAW_GC_CHILD") == "" {
		t.Run("asyncpreemptoff", func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestRawGC$", "-test.v")
			cmd.Env = append(os.Environ(), "MENTAT_SPEC_RAW_GC_CHILD=1", "GODEBUG=asyncpreemptoff=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "blocked in raw reads") {
				t.Fatalf("child with GODEBUG=asyncpreemptoff=1: %v\n%s", err, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "blocked in raw reads") {
					t.Log(strings.TrimSpace(l))
				}
			}
		})
	}
	for _, pk := range pgtest.ProcessKinds {
		t.Run(pk.Name, func(t *testing.T) {
			pgtest.AsProcess(t, pk.Client)
			rawGC(t)
		})
	}
}

// rawGC blocks three sessions in pg_sleep and runs a GC cycle meanwhile.
func rawGC(t *testing.T) {
	b := openTest(t, rawVariants[0], nil)
	const sessions, sleep = 3, 3 * time.Second
	ctx := testCtx(t)
	var wg sync.WaitGroup
	started := make(chan struct{}, sessions)
	errs := make(chan error, sessions)
	for range sessions {
		s, err := b.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st, err := s.Prepare(ctx, "SELECT pg_sleep($1)")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			started <- struct{}{}
			if _, err := st.Query(ctx, []any{sleep.Seconds()}, nil); err != nil {
				errs <- err
			}
		}()
	}
	for range sessions {
		<-started
	}
	time.Sleep(300 * time.Millisecond) // into the blocking reads
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// ReadMemStats stops the world too.
	var before, after runtime.MemStats
	t0 := time.Now()
	runtime.ReadMemStats(&before)
	runtime.GC()
	runtime.ReadMemStats(&after)
	took := time.Since(t0)
	select {
	case <-done:
		t.Fatalf("the GC cycle took %v: it waited for the blocked reads to return", took)
	default:
	}
	<-done
	close(errs)
	for err := range errs {
		t.Errorf("sleeping query: %v", err)
	}
	if after.NumGC == before.NumGC {
		t.Fatal("no GC cycle ran")
	}
	var maxPause time.Duration
	for i := before.NumGC; i < after.NumGC; i++ {
		maxPause = max(maxPause, time.Duration(after.PauseNs[i%256]))
	}
	t.Logf("runtime.GC took %v, longest pause %v, with %d sessions blocked in raw reads (GOMAXPROCS %d)", took, maxPause, sessions, runtime.GOMAXPROCS(0))
	if took > time.Second {
		t.Errorf("runtime.GC took %v while sessions were blocked in reads, want well under the %v they block", took, sleep)
	}
}

// TestRawProcs checks that the driver's raw sessions hold GOMAXPROCS at
// their number at least (pgwire.RawSessionOpened: plus the spare Ps) and
// that closing the last one restores it.
func TestRawProcs(t *testing.T) {
	testDSN(t)
	for _, pk := range pgtest.ProcessKinds {
		t.Run(pk.Name, func(t *testing.T) {
			pgtest.AsProcess(t, pk.Client)
			rawProcsRaised(t)
		})
	}
}

func rawProcsRaised(t *testing.T) {
	b := openTest(t, rawVariants[0], nil)
	before := runtime.GOMAXPROCS(0)
	ctx := testCtx(t)
	var ss []drivers.Session
	for range before + 1 {
		s, err := b.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	if got := runtime.GOMAXPROCS(0); got < len(ss) {
		t.Errorf("GOMAXPROCS with %d raw sessions = %d, want at least %d", len(ss), got, len(ss))
	}
	for _, s := range ss {
		s.Close()
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS after the sessions closed = %d, want %d restored", got, before)
	}
}

// TestCountedErrors: a failing counted call reports the server's error
// and leaves the session usable, in every io mode's counted path.
func TestCountedErrors(t *testing.T) {
	testDSN(t)
	for _, v := range rawVariants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, err = counted(t, ctx, s, "SELECT 1 / ($1::int - 1)", int64(1))
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "22012" || !strings.Contains(err.Error(), "SELECT 1 / ($1::int - 1)") {
				t.Errorf("division by zero: %v; want 22012 naming the statement", err)
			}
			if n, err := counted(t, ctx, s, "SELECT 1 / ($1::int - 1)", int64(2)); err != nil || n != 1 {
				t.Errorf("after the error: %d rows, %v", n, err)
			}
			if err := s.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
				t.Fatal(err)
			}
			if n, err := counted(t, ctx, s, "INSERT INTO t SELECT generate_series(1, $1::int)", int64(5)); err != nil || n != 5 {
				t.Errorf("INSERT: %d rows affected, %v; want 5", n, err)
			}
			if n, err := counted(t, ctx, s, "SELECT x FROM t WHERE x > $1", int64(1)); err != nil || n != 4 {
				t.Errorf("SELECT: %d rows, %v; want 4", n, err)
			}
			if n, err := counted(t, ctx, s, "SELECT x FROM t WHERE x > $1", int64(9)); err != nil || n != 0 {
				t.Errorf("SELECT of nothing: %d rows, %v; want 0", n, err)
			}
			if _, err := counted(t, ctx, s, "SELECT $1::int", "x"); err == nil {
				t.Error("a bad parameter passed")
			}
		})
	}
}

// TestCountedSimpleText checks the simple protocol's counted path sends
// the arguments as pgx would: quotes, comments and dollar quotes that
// look like placeholders are left alone, and the counts match the
// collected path's (pgx's own interpolation).
func TestCountedSimpleText(t *testing.T) {
	testDSN(t)
	b := openTest(t, rawVariants[1], nil)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := []struct {
		sql  string
		args []any
		want int64
	}{
		{"SELECT 1 WHERE $1 = 'it''s'", []any{"it's"}, 1},
		{"SELECT 1 WHERE $1 = 'a\\b'", []any{`a\b`}, 1},
		{"SELECT 1 WHERE '$1' = '$' || '1' AND $1::int = -3", []any{int64(-3)}, 1},
		{"SELECT 1 WHERE $1::float8 = 2.5 -- $2\n", []any{2.5}, 1},
		{"SELECT 1 /* $2 /* nested $3 */ */ WHERE $1::bool", []any{true}, 1},
		{"SELECT 1 WHERE $$ $1 $$ = ' $1 ' AND $tag$ $2 $tag$ = ' $2 ' AND $1 IS NULL", []any{nil}, 1},
		{"SELECT 1 WHERE E'\\' $1' = ''' $1' AND $1 = 'x'", []any{"y"}, 0},
		{`SELECT 1 AS "$1" WHERE $1 = $2`, []any{"a", "a"}, 1},
		{"SELECT generate_series(1, $1::int)", []any{int64(7)}, 7},
	}
	for _, c := range cases {
		st, err := s.Prepare(ctx, c.sql)
		if err != nil {
			t.Fatal(err)
		}
		n, err := st.Query(ctx, c.args, nil)
		var rows [][]any
		m, merr := st.Query(ctx, c.args, &rows)
		st.Close()
		if err != nil || merr != nil || n != c.want || m != c.want {
			t.Errorf("%q %v: counted %d (%v), collected %d (%v); want %d", c.sql, c.args, n, err, m, merr, c.want)
		}
	}
}
