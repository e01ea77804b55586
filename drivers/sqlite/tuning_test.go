package sqlite

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// compilations counts the SELECT statements SQLite compiles on s's
// connection from now on: it asks the authorizer about each statement as
// it compiles it, again when it compiles it anew for a bound value, and
// at no other time. Call it before preparing (setting an authorizer
// expires the connection's prepared statements).
func compilations(t testing.TB, s drivers.Session) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	s.(*session).conn.RegisterAuthorizer(func(op int, _, _, _ string) int {
		if op == sqlite3.SQLITE_SELECT {
			n.Add(1)
		}
		return sqlite3.SQLITE_OK
	})
	return &n
}

// recompiledIn runs st with each args in turn, calls times, after a first
// call (which may compile it), and returns how many times SQLite compiled
// it meanwhile.
func recompiledIn(t testing.TB, compiled *atomic.Int64, st drivers.Stmt, args [][]any, calls int) int64 {
	t.Helper()
	ctx := context.Background()
	for i := range calls + 1 {
		if i == 1 {
			compiled.Store(0)
		}
		if _, err := st.Query(ctx, args[i%len(args)], nil); err != nil {
			t.Fatal(err)
		}
	}
	return compiled.Load()
}

// A statement whose plan SQLite considers value-dependent is not compiled
// again at each call: it keeps its plan whatever the values bound.
func TestStatementsKeepTheirPlan(t *testing.T) {
	if memStatus != nil {
		t.Errorf("allocation statistics still on: %v", memStatus)
	}
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, `CREATE TABLE t1 (e INTEGER, a INTEGER, v TEXT)`)
	drivertest.Exec(t, s, `CREATE TABLE t2 (e INTEGER, a INTEGER, v INTEGER)`)
	drivertest.Exec(t, s, `CREATE INDEX t1_e ON t1 (e, a)`)
	drivertest.Exec(t, s, `CREATE INDEX t2_e ON t2 (e, a)`)
	drivertest.Exec(t, s, `INSERT INTO t1 VALUES (1, 1, 'x'), (2, 1, 'y')`)
	drivertest.Exec(t, s, `INSERT INTO t2 VALUES (1, 2, 7), (2, 2, 8)`)
	for _, tc := range []struct{ name, sql string }{
		{"union all filtered by a parameter", `SELECT d.a, d.v FROM (SELECT e, a, v FROM t1 UNION ALL SELECT e, a, CAST(v AS TEXT) FROM t2) d WHERE d.e = ? ORDER BY 1, 2`},
		{"like with a parameter", `SELECT e FROM t1 WHERE v LIKE ?`},
		{"point lookup", `SELECT e FROM t1 WHERE e = ? AND a = 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compiled := compilations(t, s)
			st, err := s.Prepare(context.Background(), tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			args := [][]any{{int64(1)}, {int64(2)}, {int64(1)}}
			if tc.name == "like with a parameter" {
				args = [][]any{{"x%"}, {"y%"}, {"%"}}
			}
			if n := recompiledIn(t, compiled, st, args, 30); n != 0 {
				t.Errorf("compiled again %d times in 30 calls", n)
			}
		})
	}
}

// TestStablePlansOption: stable_plans = "off" gives SQLite's own
// behaviour back (the union is compiled again at every new value), and a
// value other than on or off is refused.
func TestStablePlansOption(t *testing.T) {
	for _, tc := range []struct {
		value   string
		recomps bool
		wantErr bool
	}{
		{"on", false, false},
		{"off", true, false},
		{"maybe", false, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			cfg := drivers.Config{DataDir: t.TempDir(), Options: map[string]string{"stable_plans": tc.value}}
			b, err := New().Open(context.Background(), cfg)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "stable_plans") {
					b.Close()
					t.Fatalf("want an error naming stable_plans, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			s := drivertest.Session(t, b)
			drivertest.Exec(t, s, `CREATE TABLE t1 (e INTEGER, a INTEGER, v TEXT)`)
			drivertest.Exec(t, s, `CREATE TABLE t2 (e INTEGER, a INTEGER, v INTEGER)`)
			drivertest.Exec(t, s, `CREATE INDEX t1_e ON t1 (e, a)`)
			drivertest.Exec(t, s, `CREATE INDEX t2_e ON t2 (e, a)`)
			compiled := compilations(t, s)
			st, err := s.Prepare(context.Background(), `SELECT d.a, d.v FROM (SELECT e, a, v FROM t1 UNION ALL SELECT e, a, CAST(v AS TEXT) FROM t2) d WHERE d.e = ? ORDER BY 1, 2`)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			args := [][]any{{int64(1)}, {int64(2)}, {int64(3)}}
			if n := recompiledIn(t, compiled, st, args, 10); (n > 0) != tc.recomps {
				t.Errorf("stable_plans = %s: compiled again %d times in 10 calls", tc.value, n)
			}
		})
	}
}
