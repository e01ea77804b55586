// Package drivertest is the conformance suite every driver's tests run:
//
//	func TestConformance(t *testing.T) {
//		fx := drivertest.Fixtures{SlowQuery: "SELECT pg_sleep(30)", KnownSetting: "work_mem"}
//		drivertest.Run(t, fx, func(t *testing.T) drivers.Backend { ... })
//	}
//
// The SQL is portable across SQLite, PostgreSQL and DuckDB; parameters use
// the backend's Placeholder, and the one dialect-specific statement (a slow
// query to cancel) is picked by Dialect.
package drivertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Fixtures are what the suite needs of each database, supplied by the
// driver's own test: the suite holds no list of databases.
type Fixtures struct {
	// SlowQuery runs for far longer than the cancel test's deadline.
	SlowQuery string
	// KnownSetting is a setting ReadSettings must answer (when the
	// backend is a SettingsReader).
	KnownSetting string
}

// Run runs every subtest, each on a fresh backend from open. open should
// register the backend's cleanup (Close, removing temp files) with t.
func Run(t *testing.T, fx Fixtures, open func(t *testing.T) drivers.Backend) {
	if fx.SlowQuery == "" {
		t.Fatal("drivertest: Fixtures.SlowQuery is empty: the cancel test needs a query that runs for seconds")
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, b drivers.Backend)
	}{
		{"ExecDDL", testExecDDL},
		{"BulkLoad", testBulkLoad},
		{"ParamRoundTrip", testParamRoundTrip},
		{"Null", testNull},
		{"CollectVsCount", testCollectVsCount},
		{"Error", testError},
		{"Cancel", func(t *testing.T, b drivers.Backend) { testCancel(t, b, fx.SlowQuery) }},
		{"ConcurrentSessions", testConcurrentSessions},
		{"Capabilities", func(t *testing.T, b drivers.Backend) { testCapabilities(t, b, fx.KnownSetting) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			if b == nil {
				t.Fatal("open returned a nil backend")
			}
			tc.fn(t, b)
		})
	}
}

// Normalize maps a value a driver returned to a comparable form: bools
// become int64 0/1 (SQLite has no boolean type, and go-sqlite3 returns a
// BOOL column as int64 0/1), narrower integers int64, float32 float64, and
// []byte string.
func Normalize(v any) any {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	}
	return v
}

// Equal compares two values after Normalize.
func Equal(a, b any) bool { return reflect.DeepEqual(Normalize(a), Normalize(b)) }

// Open opens a backend of d for a test, in a fresh directory unless cfg
// names one or a path, as backend "test" unless cfg names it, closed
// when the test ends: the embedded drivers' tests open their stores so.
func Open(t testing.TB, d drivers.Driver, cfg drivers.Config) drivers.Backend {
	t.Helper()
	if cfg.DataDir == "" && cfg.Options["path"] == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Backend == "" {
		cfg.Backend = "test"
	}
	b, err := d.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Session opens a session on b, closed (and its Close checked) when the
// test ends.
func Session(t testing.TB, b drivers.Backend) drivers.Session {
	t.Helper()
	s, err := b.Session(ctxT(t))
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Session.Close: %v", err)
		}
	})
	return s
}

// Exec runs sql on s, failing the test on an error.
func Exec(t testing.TB, s drivers.Session, sql string) {
	t.Helper()
	if err := s.Exec(ctxT(t), sql); err != nil {
		t.Fatalf("Exec %q: %v", sql, err)
	}
}

// createTable drops any table of that name first: a backend may be a
// shared server database rather than a fresh file.
func createTable(t testing.TB, s drivers.Session, name, cols string) {
	t.Helper()
	Exec(t, s, "DROP TABLE IF EXISTS "+name)
	Exec(t, s, "CREATE TABLE "+name+" ("+cols+")")
}

// Rows prepares sql, runs it collecting its rows, and closes it; the
// count the driver returns must match the rows collected.
func Rows(t testing.TB, s drivers.Session, sql string, args ...any) [][]any {
	t.Helper()
	st, err := s.Prepare(ctxT(t), sql)
	if err != nil {
		t.Fatalf("Prepare %q: %v", sql, err)
	}
	defer st.Close()
	var rows [][]any
	n, err := st.Query(ctxT(t), args, &rows)
	if err != nil {
		t.Fatalf("Query %q %v: %v", sql, args, err)
	}
	if n != int64(len(rows)) {
		t.Fatalf("Query %q: returned count %d, collected %d rows", sql, n, len(rows))
	}
	return rows
}

// Scalar runs a query expected to return one row of one value.
func Scalar(t testing.TB, s drivers.Session, sql string, args ...any) any {
	t.Helper()
	rows := Rows(t, s, sql, args...)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("Query %q: got %v, want one row of one value", sql, rows)
	}
	return rows[0][0]
}

// Count returns a table's count(*) as int64.
func Count(t testing.TB, s drivers.Session, table string) int64 {
	t.Helper()
	v := Normalize(Scalar(t, s, "SELECT count(*) FROM "+table))
	n, ok := v.(int64)
	if !ok {
		t.Fatalf("count(*) from %s returned %T %v", table, v, v)
	}
	return n
}

func testExecDDL(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	createTable(t, s, "dt_ddl", "id BIGINT, name TEXT")
	Exec(t, s, "INSERT INTO dt_ddl (id, name) VALUES (1, 'a'), (2, 'b')")
	Exec(t, s, "CREATE INDEX dt_ddl_name ON dt_ddl (name)")
	if n := Count(t, s, "dt_ddl"); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
}

func testBulkLoad(t *testing.T, b drivers.Backend) {
	bl, ok := b.(drivers.BulkLoader)
	if !ok {
		t.Skip("backend has no BulkLoader")
	}
	s := Session(t, b)
	createTable(t, s, "dt_load_a", "e BIGINT, a INTEGER, v TEXT, tx BIGINT, added BOOLEAN")
	createTable(t, s, "dt_load_b", "id BIGINT, score DOUBLE PRECISION, name TEXT")
	ctx := ctxT(t)
	l, err := bl.NewLoader(ctx, []drivers.TableSpec{
		{Name: "dt_load_a", Columns: []string{"e", "a", "v", "tx", "added"}},
		{Name: "dt_load_b", Columns: []string{"id", "score", "name"}},
	})
	if err != nil {
		t.Fatalf("NewLoader: %v", err)
	}
	defer func() {
		if err := l.Close(); err != nil {
			t.Errorf("Loader.Close: %v", err)
		}
	}()
	const na, nb = 3001, 1999
	var wantSum int64
	row := make([]any, 5) // reused, as the loader contract allows
	for i := 0; i < na; i++ {
		row[0], row[1], row[2], row[3], row[4] = int64(i)<<33, int64(i%7), fmt.Sprintf("v%d'é", i), int64(i/10), i%2 == 0
		wantSum += int64(i % 7)
		if err := l.Append(0, row); err != nil {
			t.Fatalf("Append a %d: %v", i, err)
		}
		if i < nb {
			if err := l.Append(1, []any{int64(i), float64(i) / 4, "n" + fmt.Sprint(i)}); err != nil {
				t.Fatalf("Append b %d: %v", i, err)
			}
		}
		if i%1000 == 999 {
			if err := l.Flush(ctx); err != nil {
				t.Fatalf("Flush at %d: %v", i, err)
			}
		}
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatalf("final Flush: %v", err)
	}
	if n := Count(t, s, "dt_load_a"); n != na {
		t.Errorf("dt_load_a count = %d, want %d", n, na)
	}
	if n := Count(t, s, "dt_load_b"); n != nb {
		t.Errorf("dt_load_b count = %d, want %d", n, nb)
	}
	if got := Scalar(t, s, "SELECT sum(a) FROM dt_load_a"); !Equal(toInt64(got), wantSum) {
		t.Errorf("sum(a) = %v, want %d", got, wantSum)
	}
	got := Rows(t, s, "SELECT e, a, v, tx, added FROM dt_load_a WHERE e = "+b.Placeholder(1), int64(2999)<<33)
	want := []any{int64(2999) << 33, int64(2999 % 7), "v2999'é", int64(299), false}
	if len(got) != 1 || !rowEqual(got[0], want) {
		t.Errorf("row e=2999<<33: got %v, want %v", got, want)
	}
}

// toInt64 accepts the types sum() comes back as: int64, a *big.Int
// (DuckDB's HUGEINT), or a decimal as float64 or string.
func toInt64(v any) any {
	switch x := Normalize(v).(type) {
	case interface{ Int64() int64 }:
		return x.Int64()
	case float64:
		return int64(x)
	case string:
		var n int64
		if _, err := fmt.Sscan(x, &n); err == nil {
			return n
		}
	}
	return Normalize(v)
}

func rowEqual(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !Equal(got[i], want[i]) {
			return false
		}
	}
	return true
}

func testParamRoundTrip(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	p1, p2 := b.Placeholder(1), b.Placeholder(2)
	cases := []struct {
		typ  string
		vals []any
	}{
		{"BIGINT", []any{int64(0), int64(1), int64(-1), int64(1<<53 + 1), -int64(1<<53 + 1), int64(math.MaxInt64), int64(math.MinInt64)}},
		{"DOUBLE PRECISION", []any{0.0, 0.5, -1.25, math.Pi, 1e300, -2.5e-300}},
		{"TEXT", []any{"", "plain", "ünïcødé ✓ 日本語 🚀", `it's "quoted" \ back`, "line\nbreak\ttab", "; DROP TABLE x; --"}},
		{"BOOLEAN", []any{true, false}},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.typ, " ", "_"), func(t *testing.T) {
			table := "dt_rt_" + strings.ToLower(strings.Fields(c.typ)[0])
			createTable(t, s, table, "id BIGINT, v "+c.typ)
			ins, err := s.Prepare(ctxT(t), "INSERT INTO "+table+" (id, v) VALUES ("+p1+", "+p2+")")
			if err != nil {
				t.Fatalf("Prepare insert: %v", err)
			}
			defer ins.Close()
			for i, v := range c.vals {
				if _, err := ins.Query(ctxT(t), []any{int64(i), v}, nil); err != nil {
					t.Fatalf("insert %#v: %v", v, err)
				}
			}
			sel, err := s.Prepare(ctxT(t), "SELECT v FROM "+table+" WHERE id = "+p1)
			if err != nil {
				t.Fatalf("Prepare select: %v", err)
			}
			defer sel.Close()
			for i, want := range c.vals {
				var rows [][]any
				if _, err := sel.Query(ctxT(t), []any{int64(i)}, &rows); err != nil {
					t.Fatalf("select %d: %v", i, err)
				}
				if len(rows) != 1 || len(rows[0]) != 1 {
					t.Fatalf("select %d: got %v, want one value", i, rows)
				}
				if got := rows[0][0]; !Equal(got, want) {
					t.Errorf("round trip of %#v: got %#v (%T)", want, got, got)
				}
			}
		})
	}
}

func testNull(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	ph := make([]string, 5)
	for i := range ph {
		ph[i] = b.Placeholder(i + 1)
	}
	createTable(t, s, "dt_null", "id BIGINT, i BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN")
	ins, err := s.Prepare(ctxT(t), "INSERT INTO dt_null (id, i, f, s, b) VALUES ("+strings.Join(ph, ", ")+")")
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer ins.Close()
	if _, err := ins.Query(ctxT(t), []any{int64(1), nil, nil, nil, nil}, nil); err != nil {
		t.Fatalf("insert NULLs: %v", err)
	}
	rows := Rows(t, s, "SELECT i, f, s, b FROM dt_null WHERE id = "+ph[0], int64(1))
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1", len(rows))
	}
	for i, v := range rows[0] {
		if v != nil {
			t.Errorf("column %d: got %#v, want nil", i, v)
		}
	}
	if n := Scalar(t, s, "SELECT count(*) FROM dt_null WHERE s IS NULL AND i IS NULL"); !Equal(n, int64(1)) {
		t.Errorf("IS NULL count = %v, want 1", n)
	}
}

func testCollectVsCount(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	createTable(t, s, "dt_rows", "id BIGINT, name TEXT")
	const n = 257
	var sb strings.Builder
	sb.WriteString("INSERT INTO dt_rows (id, name) VALUES ")
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, 'name%d')", i, i)
	}
	Exec(t, s, sb.String())
	st, err := s.Prepare(ctxT(t), "SELECT id, name FROM dt_rows WHERE id >= "+b.Placeholder(1)+" ORDER BY id")
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	defer st.Close()
	for _, from := range []int64{0, 100, n} {
		counted, err := st.Query(ctxT(t), []any{from}, nil)
		if err != nil {
			t.Fatalf("count from %d: %v", from, err)
		}
		// Rows are appended: a pre-filled destination keeps its rows.
		rows := [][]any{{"sentinel"}}
		collected, err := st.Query(ctxT(t), []any{from}, &rows)
		if err != nil {
			t.Fatalf("collect from %d: %v", from, err)
		}
		want := n - from
		if counted != want || collected != want || int64(len(rows)) != want+1 {
			t.Fatalf("from %d: counted %d, collected %d (%d rows appended), want %d", from, counted, collected, len(rows)-1, want)
		}
		for i, r := range rows[1:] {
			id := from + int64(i)
			if !rowEqual(r, []any{id, fmt.Sprintf("name%d", id)}) {
				t.Fatalf("row %d: got %v", id, r)
			}
		}
	}
}

// mentionsContext reports whether err names the statement or the backend.
func mentionsContext(err error, sql, dialect string) bool {
	msg := err.Error()
	return strings.Contains(msg, sql[:min(len(sql), 24)]) || strings.Contains(strings.ToLower(msg), dialect)
}

func testError(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	const bad = "SELECT no_such_column FROM no_such_table_dt"
	err := s.Exec(ctxT(t), bad)
	if err == nil {
		t.Fatal("Exec of a bad statement succeeded")
	}
	if !mentionsContext(err, bad, b.Dialect()) {
		t.Errorf("Exec error %q names neither the statement nor the backend", err)
	}
	// Prepare may defer the error to Query; either must report it.
	st, err := s.Prepare(ctxT(t), bad)
	if err == nil {
		_, err = st.Query(ctxT(t), nil, nil)
		st.Close()
	}
	if err == nil {
		t.Fatal("Prepare+Query of a bad statement succeeded")
	}
	if !mentionsContext(err, bad, b.Dialect()) {
		t.Errorf("Prepare/Query error %q names neither the statement nor the backend", err)
	}
	if v := Scalar(t, s, "SELECT 1"); !Equal(v, int64(1)) {
		t.Errorf("after errors: SELECT 1 = %#v", v)
	}
}

func testCancel(t *testing.T, b drivers.Backend, slow string) {
	s := Session(t, b)
	st, err := s.Prepare(ctxT(t), slow)
	if err != nil {
		t.Fatalf("Prepare slow query: %v", err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = st.Query(ctx, nil, nil)
	elapsed := time.Since(start)
	if err == nil {
		t.Fatalf("slow query finished without error in %v", elapsed)
	}
	if elapsed > 2*time.Second {
		t.Errorf("cancellation took %v, want < 2s", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("note: cancel error does not wrap context.DeadlineExceeded: %v", err)
	}
	if v := Scalar(t, s, "SELECT 1"); !Equal(v, int64(1)) {
		t.Errorf("after cancel: SELECT 1 = %#v", v)
	}
}

func testConcurrentSessions(t *testing.T, b drivers.Backend) {
	s := Session(t, b)
	createTable(t, s, "dt_conc", "id BIGINT")
	var sb strings.Builder
	sb.WriteString("INSERT INTO dt_conc (id) VALUES (0)")
	for i := 1; i < 100; i++ {
		fmt.Fprintf(&sb, ", (%d)", i)
	}
	Exec(t, s, sb.String())
	const clients, queries = 4, 50
	sessions := make([]drivers.Session, clients)
	for i := range sessions {
		sessions[i] = Session(t, b)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := make(chan struct{})
	for c, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			st, err := cs.Prepare(ctx, "SELECT id FROM dt_conc WHERE id < "+b.Placeholder(1))
			if err != nil {
				errs <- fmt.Errorf("client %d: Prepare: %w", c, err)
				return
			}
			defer st.Close()
			<-start
			for q := 0; q < queries; q++ {
				limit := int64((c*queries + q) % 101)
				n, err := st.Query(ctx, []any{limit}, nil)
				if err != nil {
					errs <- fmt.Errorf("client %d query %d: %w", c, q, err)
					return
				}
				if n != limit {
					errs <- fmt.Errorf("client %d: id < %d returned %d rows", c, limit, n)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testCapabilities(t *testing.T, b drivers.Backend, setting string) {
	s := Session(t, b)
	createTable(t, s, "dt_caps", "id BIGINT, name TEXT")
	Exec(t, s, "INSERT INTO dt_caps (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	Exec(t, s, "CREATE INDEX dt_caps_id ON dt_caps (id)")
	ctx := ctxT(t)
	tested := 0
	if x, ok := b.(drivers.Sizer); ok {
		tested++
		if n, err := x.Size(ctx); err != nil || n <= 0 {
			t.Errorf("Size = %d, %v; want > 0", n, err)
		}
	}
	if x, ok := b.(drivers.Explainer); ok {
		tested++
		plan, err := x.Explain(ctx, "SELECT name FROM dt_caps WHERE id = "+b.Placeholder(1), []any{int64(2)})
		if err != nil || strings.TrimSpace(plan) == "" {
			t.Errorf("Explain = %q, %v; want a plan", plan, err)
		}
	}
	if x, ok := b.(drivers.Versioner); ok {
		tested++
		if v, err := x.Version(ctx); err != nil || strings.TrimSpace(v) == "" {
			t.Errorf("Version = %q, %v; want a version", v, err)
		}
	}
	if x, ok := b.(drivers.SettingsReader); ok {
		tested++
		if setting == "" {
			t.Error("the backend reads settings, but the driver's Fixtures name no KnownSetting to read")
		} else {
			m, err := x.ReadSettings(ctx, []string{setting})
			if err != nil || m[setting] == "" {
				t.Errorf("ReadSettings(%s) = %v, %v; want a value", setting, m, err)
			}
		}
	}
	if tested == 0 {
		t.Skip("backend implements none of Sizer, Explainer, Versioner, SettingsReader")
	}
}

// QueryStore opens the store cfg names through the registered driver,
// runs sql collecting its rows, and closes everything: for tests that look
// at a store from outside the run that made it.
func QueryStore(t *testing.T, driver string, cfg drivers.Config, sql string, args ...any) [][]any {
	t.Helper()
	drv, ok := drivers.Default.Lookup(driver)
	if !ok {
		t.Fatalf("driver %q is not registered", driver)
	}
	b, err := drv.Open(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("open %s store: %v", driver, err)
	}
	defer b.Close()
	s, err := b.Session(ctxT(t))
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	defer s.Close()
	return Rows(t, s, sql, args...)
}
