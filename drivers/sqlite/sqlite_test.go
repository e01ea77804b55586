package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

func openT(t testing.TB, cfg drivers.Config) *backend {
	t.Helper()
	return drivertest.Open(t, New(), cfg).(*backend)
}

func TestConformance(t *testing.T) {
	drivertest.Run(t, drivertest.Fixtures{
		SlowQuery:    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c",
		KnownSetting: "journal_mode",
	}, func(t *testing.T) drivers.Backend {
		return openT(t, drivers.Config{Backend: "conformance", Scale: "xs"})
	})
}

func TestRegistered(t *testing.T) {
	d, ok := drivers.Default.Lookup(Name)
	if !ok {
		t.Fatalf("%q is not registered in drivers.Default", Name)
	}
	if names := d.OptionNames(); strings.Join(names, ",") != "path,readers,stable_plans" {
		t.Errorf("OptionNames: %v", names)
	}
	if d.Dialect() != Name {
		t.Errorf("Dialect: %q, want %q", d.Dialect(), Name)
	}
}

func TestOpenPathAndCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing", "data")
	cfg := drivers.Config{Backend: "sq", Scale: "m", DataDir: dir}
	b := openT(t, cfg)
	if want := filepath.Join(dir, "sq-m.sqlite"); b.path != want {
		t.Errorf("path = %s, want %s", b.path, want)
	}
	if !b.Created() {
		t.Error("Created() = false for a new file")
	}
	b.Close()
	b2 := openT(t, cfg)
	if b2.Created() {
		t.Error("Created() = true for an existing file")
	}

	rel := openT(t, drivers.Config{DataDir: dir, Options: map[string]string{"path": "sub/x.db"}})
	if want := filepath.Join(dir, "sub", "x.db"); rel.path != want {
		t.Errorf("relative path = %s, want %s", rel.path, want)
	}
}

func TestOpenRejects(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		cfg  drivers.Config
		want string
	}{
		{"unknown option", drivers.Config{Options: map[string]string{"dsn": "x"}}, `unknown option "dsn"`},
		{"uri path", drivers.Config{Options: map[string]string{"path": "file:x.db?mode=ro"}}, "plain file path"},
		{"memory", drivers.Config{Options: map[string]string{"path": ":memory:"}}, "plain file path"},
		{"no location", drivers.Config{DataDir: "-"}, "neither"},
		{"escaping name", drivers.Config{Scale: "../../x"}, "cannot form a file name"},
		{"bad name", drivers.Config{Settings: map[string]string{"cache size": "1"}}, "not a pragma name"},
		{"bad value", drivers.Config{Settings: map[string]string{"cache_size": "1; DROP TABLE x"}}, "value must be"},
		{"unknown pragma", drivers.Config{Settings: map[string]string{"journal_mod": "WAL"}}, "unknown pragma"},
		{"mode not taken", drivers.Config{Settings: map[string]string{"journal_mode": "BOGUS"}}, "journal_mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Backend = "rej"
			if cfg.DataDir == "" {
				cfg.DataDir = dir
			} else if cfg.DataDir == "-" {
				cfg.DataDir = ""
			}
			b, err := New().Open(context.Background(), cfg)
			if err == nil {
				b.Close()
				t.Fatalf("Open succeeded, want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"rej"`) {
				t.Errorf("error %q, want it to contain %q and the backend name", err, c.want)
			}
		})
	}
	// A failed Open of a new file leaves nothing behind.
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed opens left files: %v", ents)
	}
}

func TestSettingsApplied(t *testing.T) {
	b := openT(t, drivers.Config{Settings: map[string]string{"cache_size": "-4000", "temp_store": "MEMORY", "mmap_size": "1048576"}})
	got, err := b.ReadSettings(context.Background(), []string{"cache_size", "journal_mode", "synchronous", "busy_timeout", "temp_store", "case_sensitive_like"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"cache_size": "-4000", "journal_mode": "wal", "synchronous": "1", "busy_timeout": "10000", "temp_store": "2", "case_sensitive_like": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Every session gets the pragmas too.
	s := drivertest.Session(t, b)
	if rows := drivertest.Rows(t, s, "PRAGMA cache_size"); len(rows) != 1 || rows[0][0] != int64(-4000) {
		t.Errorf("session cache_size = %v", rows)
	}
	if _, err := b.ReadSettings(context.Background(), []string{"x; DROP"}); err == nil {
		t.Error("ReadSettings accepted a bad name")
	}
}

// TestCancel interrupts a query that would run for minutes and reuses the
// session and the same statement afterwards.
func TestCancel(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	st, err := s.Prepare(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err = st.Query(ctx, []any{int64(1e9)}, nil)
		cancel()
		if d := time.Since(start); d > time.Second {
			t.Errorf("cancel took %v", d)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		if !strings.Contains(err.Error(), "WITH RECURSIVE") {
			t.Errorf("error %q lacks the statement", err)
		}
		var rows [][]any
		if _, err := st.Query(context.Background(), []any{int64(1000)}, &rows); err != nil || rows[0][0] != int64(1000) {
			t.Fatalf("same statement after cancel: %v, %v", rows, err)
		}
		if r := drivertest.Rows(t, s, "SELECT 42"); r[0][0] != int64(42) {
			t.Fatalf("session after cancel: %v", r)
		}
	}
	// Exec is interruptible too.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = s.Exec(ctx, "CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT x FROM c")
	if err == nil {
		t.Fatal("slow Exec was not interrupted")
	}
	drivertest.Exec(t, s, "CREATE TABLE after_cancel (x INTEGER)")
}

func TestQueryArgErrors(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	st, err := s.Prepare(context.Background(), "SELECT ? + 0")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []any
		want string
	}{
		{nil, "got 0 parameters"},
		{[]any{1, 2}, "got 2 parameters"},
		{[]any{struct{}{}}, "unsupported parameter type"},
		{[]any{uint64(1 << 63)}, "overflows"},
		{[]any{[]int{1}}, "unsupported parameter type"},
	}
	for _, c := range cases {
		_, err := st.Query(context.Background(), c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "SELECT ? + 0") {
			t.Errorf("args %v: err %v, want %q with the statement", c.args, err, c.want)
		}
	}
	var rows [][]any
	if _, err := st.Query(context.Background(), []any{int32(7)}, &rows); err != nil || rows[0][0] != int64(7) {
		t.Errorf("int32 arg: %v %v", rows, err)
	}
	st.Close()
	if _, err := st.Query(context.Background(), []any{1}, nil); err == nil {
		t.Error("query on a closed statement succeeded")
	}
	for _, sql := range []string{"", "   ", "-- only a comment", " /* c */ ;\n-- x\n", "SELEC 1"} {
		if _, err := s.Prepare(context.Background(), sql); err == nil {
			t.Errorf("Prepare(%q) succeeded", sql)
		}
	}
	for _, sql := range []string{";SELECT 1", "-- c\nSELECT 1", "/* c */SELECT 1; SELECT 2"} {
		if r := drivertest.Rows(t, s, sql); len(r) != 1 || r[0][0] != int64(1) {
			t.Errorf("%q: %v", sql, r)
		}
	}
	s.Close()
	if err := s.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("exec on a closed session succeeded")
	}
	if _, err := s.Prepare(context.Background(), "SELECT 1"); err == nil {
		t.Error("prepare on a closed session succeeded")
	}
}

// TestValueTypes documents what comes back for each declared type: a BOOL
// column returns int64 0/1 (only BOOLEAN maps to Go bool in go-sqlite3).
func TestValueTypes(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE v (i BIGINT, f REAL, s TEXT, bl BLOB, b1 BOOL, b2 BOOLEAN, n TEXT)")
	drivertest.Exec(t, s, "INSERT INTO v VALUES (9007199254740993, 1.5, 'héllo', x'00ff', 1, 1, NULL)")
	got := drivertest.Rows(t, s, "SELECT * FROM v")[0]
	want := []any{int64(9007199254740993), 1.5, "héllo", []byte{0, 0xff}, int64(1), true, nil}
	for i := range want {
		if !drivertest.Equal(got[i], want[i]) || (want[i] != nil && got[i] == nil) {
			t.Errorf("column %d: got %#v, want %#v", i, got[i], want[i])
		}
	}
	if _, ok := got[4].(int64); !ok {
		t.Errorf("BOOL column: got %T, want int64", got[4])
	}
}

func TestLoader(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE t (a INTEGER, b TEXT)")
	ctx := context.Background()
	if _, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "t; DROP", Columns: []string{"a"}}}); err == nil {
		t.Error("NewLoader accepted a bad table name")
	}
	if _, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "missing", Columns: []string{"a"}}}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("NewLoader on a missing table: %v", err)
	}
	l, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "t", Columns: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(1, []any{int64(1), "x"}); err == nil {
		t.Error("Append to table 1 of 1 succeeded")
	}
	if err := l.Append(0, []any{int64(1)}); err == nil {
		t.Error("Append of a short row succeeded")
	}
	if err := l.Append(0, []any{struct{}{}, "x"}); err == nil {
		t.Error("Append of an unsupported value succeeded")
	}
	total := 0
	// Around the batch size: partial, exact and one-over batches.
	for _, n := range []int{1, maxBatchRows - 1, maxBatchRows, maxBatchRows + 1, 3*maxBatchRows + 5} {
		for i := 0; i < n; i++ {
			if err := l.Append(0, []any{int64(total), "r"}); err != nil {
				t.Fatal(err)
			}
			total++
		}
		if err := l.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got := drivertest.Count(t, s, "t"); got != int64(total) {
			t.Fatalf("after %d rows: count %d", total, got)
		}
	}
	if got := drivertest.Rows(t, s, "SELECT sum(a) FROM t")[0][0]; got != int64(total*(total-1)/2) {
		t.Errorf("sum = %v, want %d", got, total*(total-1)/2)
	}
	// Close without Flush discards the open transaction.
	for i := 0; i < 100; i++ {
		if err := l.Append(0, []any{int64(-1), "lost"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if got := drivertest.Count(t, s, "t"); got != int64(total) {
		t.Errorf("after Close without Flush: count %d, want %d", got, total)
	}
	if err := l.Append(0, []any{int64(1), "x"}); err == nil {
		t.Error("Append after Close succeeded")
	}
}

func TestConcurrentLoaders(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE t (a INTEGER)")
	const loaders, rows = 3, 20000
	var wg sync.WaitGroup
	errs := make(chan error, loaders)
	for w := 0; w < loaders; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			l, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "t", Columns: []string{"a"}}})
			if err != nil {
				errs <- err
				return
			}
			defer l.Close()
			row := make([]any, 1)
			for i := 0; i < rows; i++ {
				row[0] = int64(w*rows + i)
				if err := l.Append(0, row); err != nil {
					errs <- err
					return
				}
				if i%1000 == 999 {
					if err := l.Flush(ctx); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- l.Flush(ctx)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := drivertest.Rows(t, s, "SELECT count(DISTINCT a) FROM t")[0][0]; got != int64(loaders*rows) {
		t.Errorf("distinct rows = %v, want %d", got, loaders*rows)
	}
}

func TestExplainSizeVersion(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	ctx := context.Background()
	drivertest.Exec(t, s, "CREATE TABLE t (a INTEGER, v TEXT)")
	drivertest.Exec(t, s, "CREATE INDEX t_a ON t (a)")
	size0, err := b.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "t", Columns: []string{"a", "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		if err := l.Append(0, []any{int64(i), strings.Repeat("x", 50)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	l.Close()
	size1, err := b.Size(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if size1 < size0+1_000_000 {
		t.Errorf("size %d -> %d after loading about 1.2 MB", size0, size1)
	}
	plan, err := b.Explain(ctx, "SELECT v FROM t WHERE a = ? AND a IN (SELECT a FROM t WHERE v = ?)", []any{int64(5), "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "USING INDEX t_a") || !strings.Contains(plan, "\n  ") {
		t.Errorf("plan lacks the index or nesting:\n%s", plan)
	}
	if _, err := b.Explain(ctx, "SELECT nope FROM t", nil); err == nil || !strings.Contains(err.Error(), "SELECT nope") {
		t.Errorf("Explain of a bad statement: %v", err)
	}
	v, err := b.Version(ctx)
	if err != nil || !strings.HasPrefix(v, "3.") {
		t.Errorf("Version = %q, %v", v, err)
	}
}

func TestDrop(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "keep.sqlite-wal")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := openT(t, drivers.Config{DataDir: dir, Backend: "drop"})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE t (a INTEGER)")
	drivertest.Exec(t, s, "INSERT INTO t VALUES (1)")
	if _, err := os.Stat(b.path + "-wal"); err != nil {
		t.Fatalf("no WAL file before Drop: %v", err)
	}
	if err := b.Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(b.path + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after Drop", b.path+suffix)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("Drop removed a file it did not open: %v", err)
	}
	if err := s.Exec(context.Background(), "SELECT 1"); err == nil {
		t.Error("session still usable after Drop")
	}
	if _, err := b.Session(context.Background()); err == nil {
		t.Error("Session after Drop succeeded")
	}
}

// TestCountAllocs keeps the counting path lean: go-sqlite3's rows object
// and little else.
func TestCountAllocs(t *testing.T) {
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE t (a INTEGER PRIMARY KEY, v TEXT)")
	drivertest.Exec(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	st, err := s.Prepare(context.Background(), "SELECT a, v FROM t WHERE a >= ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []any{int64(2)}
	allocs := testing.AllocsPerRun(200, func() {
		if n, err := st.Query(ctx, args, nil); err != nil || n != 2 {
			t.Fatalf("n=%d err=%v", n, err)
		}
	})
	t.Logf("allocs per counted query: %.1f", allocs)
	if allocs > 0 { // the counter's one cgo call allocates nothing
		t.Errorf("counted query allocates %.1f times, want none", allocs)
	}
}
