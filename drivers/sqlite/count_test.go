package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// A counted query (no destination) goes through the counter in one cgo
// call; it must count what the collecting path returns, for every
// parameter type, and fall back to go-sqlite3 for the types it does not
// bind itself.
func TestCountedQueryMatchesCollected(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE v (i INTEGER, f REAL, s TEXT, bl BLOB, n TEXT)")
	drivertest.Exec(t, s, "INSERT INTO v VALUES (1, 1.5, 'héllo', x'00ff', NULL), (2, 2.5, '', x'', NULL), (1, 0.5, 'a', x'61', 'x')")
	for _, tc := range []struct {
		name, sql string
		args      []any
		want      int64
		counter   bool // the counter binds these itself
	}{
		{"int64", "SELECT * FROM v WHERE i = ?", []any{int64(1)}, 2, true},
		{"int", "SELECT * FROM v WHERE i = ?", []any{2}, 1, true},
		{"float", "SELECT * FROM v WHERE f > ?", []any{1.0}, 2, true},
		{"text", "SELECT * FROM v WHERE s = ?", []any{"héllo"}, 1, true},
		{"empty text is not NULL", "SELECT * FROM v WHERE s = ?", []any{""}, 1, true},
		{"blob", "SELECT * FROM v WHERE bl = ?", []any{[]byte{0, 0xff}}, 1, true},
		{"empty blob is not NULL", "SELECT * FROM v WHERE bl = ?", []any{[]byte{}}, 1, true},
		{"NULL", "SELECT * FROM v WHERE n IS ?", []any{nil}, 2, true},
		{"bool", "SELECT * FROM v WHERE i = ?", []any{true}, 2, true},
		{"several", "SELECT * FROM v WHERE i = ? AND s = ? AND f < ?", []any{int64(1), "a", 1.0}, 1, true},
		{"long text", "SELECT * FROM v WHERE s = ?", []any{strings.Repeat("x", 1000)}, 0, true},
		{"none", "SELECT * FROM v", nil, 3, true},
		{"no rows", "SELECT * FROM v WHERE i = ?", []any{int64(9)}, 0, true},
		{"time: go-sqlite3's path", "SELECT * FROM v WHERE s <> ?", []any{time.Unix(0, 0).UTC()}, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := s.Prepare(context.Background(), tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if st.(*stmt).cnt == nil {
				t.Fatal("no counter: go-sqlite3's handles were not found")
			}
			for i := 0; i < 3; i++ { // again: reset and rebind
				n, err := st.Query(context.Background(), tc.args, nil)
				if err != nil || n != tc.want {
					t.Fatalf("counted: %d rows, %v; want %d", n, err, tc.want)
				}
				var rows [][]any
				if _, err := st.Query(context.Background(), tc.args, &rows); err != nil || int64(len(rows)) != tc.want {
					t.Fatalf("collected: %d rows, %v; want %d", len(rows), err, tc.want)
				}
			}
			args := make([]driver.NamedValue, 0, len(tc.args))
			for _, a := range tc.args {
				v, _ := convertArg(a)
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: v})
			}
			if _, _, ok := st.(*stmt).cnt.count(args); ok != tc.counter {
				t.Errorf("counter took the arguments: %v, want %v", ok, tc.counter)
			}
		})
	}
}

// An error at a step reaches the caller with SQLite's message and code,
// the statement stays usable, and an interrupt still reads as the end of
// the context.
func TestCountedQueryErrors(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	st, err := s.Prepare(context.Background(), "SELECT abs(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.Query(context.Background(), []any{int64(-1 << 63)}, nil)
	var se sqlite3.Error
	if err == nil || !strings.Contains(err.Error(), "integer overflow") || !errors.As(err, &se) || se.Code != sqlite3.ErrError {
		t.Fatalf("err %v (code %v), want SQLite's integer overflow", err, se.Code)
	}
	if !strings.Contains(err.Error(), "SELECT abs(?)") {
		t.Errorf("error %q lacks the statement", err)
	}
	if n, err := st.Query(context.Background(), []any{int64(-3)}, nil); err != nil || n != 1 {
		t.Fatalf("after the error: %d, %v", n, err)
	}

	slow, err := s.Prepare(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT x FROM c")
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	n, err := slow.Query(ctx, []any{int64(1e12)}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("interrupted count: %d rows, %v after %v", n, err, time.Since(start))
	}
	if n, err := slow.Query(context.Background(), []any{int64(1000)}, nil); err != nil || n != 1000 {
		t.Fatalf("after the interrupt: %d, %v", n, err)
	}
}

// Closing the session while a counted query runs waits for it: the
// statement is never finalized under a step.
func TestCountedQueryClose(t *testing.T) {
	b := openT(t, drivers.Config{})
	s, err := b.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Prepare(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT x FROM c")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Query(context.Background(), []any{int64(3e6)}, nil)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the running query: %v", err)
	}
	if _, err := st.Query(context.Background(), []any{int64(1)}, nil); err == nil {
		t.Fatal("a query on a closed session's statement succeeded")
	}
}
