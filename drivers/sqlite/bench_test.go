package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// The benchmarks compare the driver with what a hand-written program does
// with go-sqlite3 on the same rows, in the same run:
//
//	go test -run '^$' -bench . -benchmem ./drivers/sqlite/

const (
	loadRows  = 500_000
	rowsPerTx = 10_000
	datomDDL  = "CREATE TABLE datoms (e BIGINT, a INT, v TEXT, tx BIGINT, added BOOL)"
	insertSQL = "INSERT INTO datoms (e, a, v, tx, added) VALUES (?, ?, ?, ?, ?)"
	lookupSQL = "SELECT e, a, v, tx FROM datoms WHERE a = ? AND v = ?"
	dsnParams = "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000"
)

// datomRows are generated once: column values of loadRows rows.
var datomRows = sync.OnceValue(func() (r struct {
	e, a, tx []int64
	v        []string
	added    []bool
}) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < loadRows; i++ {
		r.e = append(r.e, int64(i/8))
		r.a = append(r.a, int64(rng.IntN(40)))
		r.v = append(r.v, "value-"+strconv.Itoa(rng.IntN(1_000_000_000)))
		r.tx = append(r.tx, int64(i/100))
		r.added = append(r.added, i%17 != 0)
	}
	return r
})

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkLoad(b *testing.B) {
	rows := datomRows()
	ctx := context.Background()

	b.Run("loader", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			be := openT(b, drivers.Config{DataDir: b.TempDir()})
			s := drivertest.Session(b, be)
			drivertest.Exec(b, s, datomDDL)
			b.StartTimer()
			l, err := be.NewLoader(ctx, []drivers.TableSpec{{Name: "datoms", Columns: []string{"e", "a", "v", "tx", "added"}}})
			if err != nil {
				b.Fatal(err)
			}
			row := make([]any, 5)
			for i := 0; i < loadRows; i++ {
				row[0], row[1], row[2], row[3], row[4] = rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]
				if err := l.Append(0, row); err != nil {
					b.Fatal(err)
				}
				if i%rowsPerTx == rowsPerTx-1 {
					if err := l.Flush(ctx); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := l.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			l.Close()
			b.StopTimer()
			if n := drivertest.Count(b, s, "datoms"); n != loadRows {
				b.Fatalf("loaded %d rows", n)
			}
			be.Close()
			b.StartTimer()
		}
		reportRows(b, loadRows)
	})

	// The hand-written loop: database/sql, one connection, a prepared
	// INSERT per transaction of 10k rows.
	b.Run("database_sql", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			db, err := sql.Open("sqlite3", filepath.Join(b.TempDir(), "raw.sqlite")+dsnParams)
			if err != nil {
				b.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(datomDDL); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			for start := 0; start < loadRows; start += rowsPerTx {
				tx, err := db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				st, err := tx.Prepare(insertSQL)
				if err != nil {
					b.Fatal(err)
				}
				for i := start; i < min(start+rowsPerTx, loadRows); i++ {
					if _, err := st.Exec(rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]); err != nil {
						b.Fatal(err)
					}
				}
				st.Close()
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			db.Close()
			b.StartTimer()
		}
		reportRows(b, loadRows)
	})

	// For reference: go-sqlite3's driver-level statement, one row per
	// INSERT, showing what skipping database/sql alone gains.
	b.Run("driver_single_row", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dc, err := (&sqlite3.SQLiteDriver{}).Open(filepath.Join(b.TempDir(), "drv.sqlite") + dsnParams)
			if err != nil {
				b.Fatal(err)
			}
			c := dc.(*sqlite3.SQLiteConn)
			if _, err := c.ExecContext(ctx, datomDDL, nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			ds, err := c.PrepareContext(ctx, insertSQL)
			if err != nil {
				b.Fatal(err)
			}
			st := ds.(*sqlite3.SQLiteStmt)
			args := make([]driver.NamedValue, 5)
			for i := range args {
				args[i].Ordinal = i + 1
			}
			for start := 0; start < loadRows; start += rowsPerTx {
				if _, err := c.ExecContext(ctx, "BEGIN", nil); err != nil {
					b.Fatal(err)
				}
				for i := start; i < min(start+rowsPerTx, loadRows); i++ {
					args[0].Value, args[1].Value, args[2].Value, args[3].Value, args[4].Value = rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]
					if _, err := st.ExecContext(ctx, args); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := c.ExecContext(ctx, "COMMIT", nil); err != nil {
					b.Fatal(err)
				}
			}
			st.Close()
			b.StopTimer()
			c.Close()
			b.StartTimer()
		}
		reportRows(b, loadRows)
	})
}

// lookupFixture loads 200k datoms with an (a, v) index and returns the
// backend, its file and a shuffled list of existing keys.
func lookupFixture(b *testing.B) (*backend, string, [][2]any) {
	const n = 200_000
	rows := datomRows()
	be := openT(b, drivers.Config{DataDir: b.TempDir()})
	s := drivertest.Session(b, be)
	drivertest.Exec(b, s, datomDDL)
	ctx := context.Background()
	l, err := be.NewLoader(ctx, []drivers.TableSpec{{Name: "datoms", Columns: []string{"e", "a", "v", "tx", "added"}}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := l.Append(0, []any{rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]}); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	l.Close()
	drivertest.Exec(b, s, "CREATE INDEX datoms_av ON datoms (a, v)")
	drivertest.Exec(b, s, "ANALYZE")
	keys := make([][2]any, 8192)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range keys {
		j := rng.IntN(n)
		keys[i] = [2]any{rows.a[j], rows.v[j]}
	}
	return be, be.path, keys
}

func reportOps(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkPointLookup(b *testing.B) {
	be, path, keys := lookupFixture(b)
	// The engine passes a cancellable context; so do the driver's cases.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	driverCase := func(collect bool) func(b *testing.B) {
		return func(b *testing.B) {
			s := drivertest.Session(b, be)
			st, err := s.Prepare(ctx, lookupSQL)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			args := make([]any, 2)
			var dst [][]any
			i := 0
			for b.Loop() {
				k := &keys[i%len(keys)]
				i++
				args[0], args[1] = k[0], k[1]
				var n int64
				if collect {
					dst = dst[:0]
					n, err = st.Query(ctx, args, &dst)
				} else {
					n, err = st.Query(ctx, args, nil)
				}
				if err != nil || n < 1 {
					b.Fatalf("n=%d err=%v", n, err)
				}
			}
			reportOps(b)
		}
	}
	b.Run("stmt_query_count", driverCase(false))
	b.Run("stmt_query_collect", driverCase(true))

	// The hand-written loops: one *sql.DB limited to one connection,
	// scanning the row, with a background context (database/sql's
	// cheapest path).
	rawCase := func(prepared bool) func(b *testing.B) {
		return func(b *testing.B) {
			db, err := sql.Open("sqlite3", path+dsnParams)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			var st *sql.Stmt
			if prepared {
				if st, err = db.Prepare(lookupSQL); err != nil {
					b.Fatal(err)
				}
				defer st.Close()
			}
			var e, a, tx int64
			var v string
			i := 0
			for b.Loop() {
				k := &keys[i%len(keys)]
				i++
				var row *sql.Row
				if prepared {
					row = st.QueryRow(k[0], k[1])
				} else {
					row = db.QueryRow(lookupSQL, k[0], k[1])
				}
				if err := row.Scan(&e, &a, &v, &tx); err != nil {
					b.Fatal(err)
				}
			}
			reportOps(b)
		}
	}
	b.Run("database_sql_queryrow", rawCase(false))
	b.Run("database_sql_prepared_queryrow", rawCase(true))
}

// BenchmarkPointLookupParallel runs one session per goroutine
// (GOMAXPROCS goroutines).
func BenchmarkPointLookupParallel(b *testing.B) {
	be, _, keys := lookupFixture(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s, err := be.Session(ctx)
		if err != nil {
			b.Error(err)
			return
		}
		defer s.Close()
		st, err := s.Prepare(ctx, lookupSQL)
		if err != nil {
			b.Error(err)
			return
		}
		i := int(next.Add(1000))
		args := make([]any, 2)
		for pb.Next() {
			k := &keys[i%len(keys)]
			i++
			args[0], args[1] = k[0], k[1]
			if n, err := st.Query(ctx, args, nil); err != nil || n < 1 {
				b.Errorf("n=%d err=%v", n, err)
				return
			}
		}
	})
	reportOps(b)
}

// The interleaved benchmarks run the variants in turn, a transaction or a
// lookup at a time, and report each one's median: on a machine shared with
// other work the separate benchmarks above drift by 2x from run to run,
// while alternating variants see the same load.

// median returns the middle of durations in nanoseconds.
func median(d []int64) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2])
}

func BenchmarkLoadInterleaved(b *testing.B) {
	rows := datomRows()
	ctx := context.Background()
	type variant struct {
		name  string
		setup func(dir string) (load func(start, end int) error, done func())
		txNs  []int64
	}
	loaderSetup := func(dir string) (func(int, int) error, func()) {
		be := openT(b, drivers.Config{DataDir: dir})
		s := drivertest.Session(b, be)
		drivertest.Exec(b, s, datomDDL)
		l, err := be.NewLoader(ctx, []drivers.TableSpec{{Name: "datoms", Columns: []string{"e", "a", "v", "tx", "added"}}})
		if err != nil {
			b.Fatal(err)
		}
		row := make([]any, 5)
		return func(start, end int) error {
			for i := start; i < end; i++ {
				row[0], row[1], row[2], row[3], row[4] = rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]
				if err := l.Append(0, row); err != nil {
					return err
				}
			}
			return l.Flush(ctx)
		}, func() { l.Close(); be.Close() }
	}
	sqlSetup := func(dir string) (func(int, int) error, func()) {
		db, err := sql.Open("sqlite3", filepath.Join(dir, "raw.sqlite")+dsnParams)
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(datomDDL); err != nil {
			b.Fatal(err)
		}
		return func(start, end int) error {
			tx, err := db.Begin()
			if err != nil {
				return err
			}
			st, err := tx.Prepare(insertSQL)
			if err != nil {
				return err
			}
			for i := start; i < end; i++ {
				if _, err := st.Exec(rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]); err != nil {
					return err
				}
			}
			st.Close()
			return tx.Commit()
		}, func() { db.Close() }
	}
	driverSetup := func(dir string) (func(int, int) error, func()) {
		dc, err := (&sqlite3.SQLiteDriver{}).Open(filepath.Join(dir, "drv.sqlite") + dsnParams)
		if err != nil {
			b.Fatal(err)
		}
		c := dc.(*sqlite3.SQLiteConn)
		if _, err := c.ExecContext(ctx, datomDDL, nil); err != nil {
			b.Fatal(err)
		}
		ds, err := c.PrepareContext(ctx, insertSQL)
		if err != nil {
			b.Fatal(err)
		}
		st := ds.(*sqlite3.SQLiteStmt)
		args := make([]driver.NamedValue, 5)
		for i := range args {
			args[i].Ordinal = i + 1
		}
		return func(start, end int) error {
			if _, err := c.ExecContext(ctx, "BEGIN", nil); err != nil {
				return err
			}
			for i := start; i < end; i++ {
				args[0].Value, args[1].Value, args[2].Value, args[3].Value, args[4].Value = rows.e[i], rows.a[i], rows.v[i], rows.tx[i], rows.added[i]
				if _, err := st.ExecContext(ctx, args); err != nil {
					return err
				}
			}
			_, err := c.ExecContext(ctx, "COMMIT", nil)
			return err
		}, func() { st.Close(); c.Close() }
	}
	vs := []*variant{{name: "loader", setup: loaderSetup}, {name: "database_sql", setup: sqlSetup}, {name: "driver_single_row", setup: driverSetup}}
	for b.Loop() {
		loads := make([]func(int, int) error, len(vs))
		for i, v := range vs {
			load, done := v.setup(b.TempDir())
			defer done()
			loads[i] = load
		}
		for start := 0; start < loadRows; start += rowsPerTx {
			for i, v := range vs {
				t0 := time.Now()
				if err := loads[i](start, min(start+rowsPerTx, loadRows)); err != nil {
					b.Fatalf("%s: %v", v.name, err)
				}
				v.txNs = append(v.txNs, time.Since(t0).Nanoseconds())
			}
		}
	}
	for _, v := range vs {
		b.ReportMetric(rowsPerTx/median(v.txNs)*1e9, v.name+"_rows/s")
	}
	b.ReportMetric(median(vs[1].txNs)/median(vs[0].txNs), "speedup")
}

// BenchmarkPointLookupInterleaved gives every variant a connection of its
// own: SQLite's page cache is per connection, and a shared one would hand
// the second variant on a key the pages the first one just read.
func BenchmarkPointLookupInterleaved(b *testing.B) {
	be, path, keys := lookupFixture(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	driverStmt := func() drivers.Stmt {
		st, err := drivertest.Session(b, be).Prepare(ctx, lookupSQL)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	sqlDB := func() *sql.DB {
		db, err := sql.Open("sqlite3", path+dsnParams)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1)
		return db
	}
	countSt, collectSt := driverStmt(), driverStmt()
	rowDB := sqlDB()
	pst, err := sqlDB().Prepare(lookupSQL)
	if err != nil {
		b.Fatal(err)
	}
	defer pst.Close()
	// What a database/sql-based driver would pay with the engine's
	// cancellable context: database/sql watches it with a goroutine.
	pstCtx, err := sqlDB().Prepare(lookupSQL)
	if err != nil {
		b.Fatal(err)
	}
	defer pstCtx.Close()
	args := make([]any, 2)
	var dst [][]any
	var e, a, tx int64
	var v string
	ops := []struct {
		name string
		run  func(k *[2]any) error
		ns   []int64
	}{
		{name: "stmt_count", run: func(k *[2]any) error {
			args[0], args[1] = k[0], k[1]
			_, err := countSt.Query(ctx, args, nil)
			return err
		}},
		{name: "stmt_collect", run: func(k *[2]any) error {
			args[0], args[1] = k[0], k[1]
			dst = dst[:0]
			_, err := collectSt.Query(ctx, args, &dst)
			return err
		}},
		{name: "sql_queryrow", run: func(k *[2]any) error {
			return rowDB.QueryRow(lookupSQL, k[0], k[1]).Scan(&e, &a, &v, &tx)
		}},
		{name: "sql_prepared", run: func(k *[2]any) error {
			return pst.QueryRow(k[0], k[1]).Scan(&e, &a, &v, &tx)
		}},
		{name: "sql_prepared_ctx", run: func(k *[2]any) error {
			return pstCtx.QueryRowContext(ctx, k[0], k[1]).Scan(&e, &a, &v, &tx)
		}},
	}
	i := 0
	for b.Loop() {
		k := &keys[i%len(keys)]
		for j := range ops {
			op := &ops[(i+j)%len(ops)] // rotate the order
			t0 := time.Now()
			if err := op.run(k); err != nil {
				b.Fatalf("%s: %v", op.name, err)
			}
			op.ns = append(op.ns, time.Since(t0).Nanoseconds())
		}
		i++
	}
	for j := range ops {
		b.ReportMetric(median(ops[j].ns), ops[j].name+"_p50_ns")
	}
}

// unionLookupSQL has the pull query's shape: a UNION ALL filtered by a
// parameter, a statement SQLite compiles again at each new value unless
// plans are kept stable.
const unionLookupSQL = `SELECT d.e, d.tx FROM (SELECT e, a, v, tx FROM datoms UNION ALL SELECT e, a, v, tx FROM datoms WHERE added) d WHERE d.a = ? AND d.v = ? ORDER BY 1, 2`

// BenchmarkStablePlans runs the UNION ALL lookup on a connection that
// keeps its plans (the driver's default) and on one with SQLite's default,
// which compiles the statement again at every call, in turn.
func BenchmarkStablePlans(b *testing.B) {
	be, _, keys := lookupFixture(b)
	ctx := context.Background()
	stmtOn := func(stable bool) (drivers.Stmt, *atomic.Int64) {
		s := drivertest.Session(b, be).(*session)
		if err := setStablePlans(dbHandle(s.conn), stable); err != nil {
			b.Fatal(err)
		}
		compiled := compilations(b, s)
		st, err := s.Prepare(ctx, unionLookupSQL)
		if err != nil {
			b.Fatal(err)
		}
		compiled.Store(0)
		return st, compiled
	}
	type op struct {
		name     string
		st       drivers.Stmt
		compiled *atomic.Int64
		ns       []int64
	}
	newOp := func(name string, stable bool) op {
		st, compiled := stmtOn(stable)
		return op{name: name, st: st, compiled: compiled}
	}
	ops := []op{newOp("stable", true), newOp("recompiled", false)}
	args := make([]any, 2)
	i := 0
	for b.Loop() {
		k := &keys[i%len(keys)]
		args[0], args[1] = k[0], k[1]
		for j := range ops {
			op := &ops[(i+j)%len(ops)]
			t0 := time.Now()
			if n, err := op.st.Query(ctx, args, nil); err != nil || n < 1 {
				b.Fatalf("%s: n=%d err=%v", op.name, n, err)
			}
			op.ns = append(op.ns, time.Since(t0).Nanoseconds())
		}
		i++
	}
	for j := range ops {
		b.ReportMetric(median(ops[j].ns), ops[j].name+"_p50_ns")
	}
	if n := ops[1].compiled.Load(); b.N > 1 && n == 0 {
		b.Errorf("the recompiled case was never compiled again")
	}
	if n := ops[0].compiled.Load(); n != 0 {
		b.Errorf("the stable case was compiled again %d times", n)
	}
}
