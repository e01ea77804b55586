package duckdb

// Benchmarks of the driver against DuckDB's own paths, side by side in one
// run on one database file. The figures in BENCHMARKS.md came from
//
//	go test -run '^$' -bench 'Load' -benchtime 7x ./drivers/duckdb/
//	go test -run '^$' -bench 'Lookup/Interleaved' -benchtime 3000x ./drivers/duckdb/
//	go test -run '^$' -bench 'Lookup/TwoFilters' -benchtime 50x ./drivers/duckdb/
//
// Load: the Loader, a raw duckdb-go Appender.AppendRow loop and DuckDB's
// COPY FROM a CSV file of the same 500k rows; rows/s up to the commit and
// up to the end of the CHECKPOINT that follows.
// Lookup: a point lookup through Stmt.Query counting rows against the same
// statement through database/sql (duckdb-go), ops/s.

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	ddb "github.com/duckdb/duckdb-go/v2"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

const (
	loadRows   = 500_000
	lookupRows = 1_000_000
)

const datomDDL = "CREATE TABLE t (e BIGINT, a INTEGER, v VARCHAR, tx BIGINT, added BOOLEAN)"

// benchValue is the v of row i: a mix of inline (<= 12 bytes) and longer
// strings, as keywords and e-mail-like text give.
func benchValue(buf []byte, i int) []byte {
	k := i * 7919 % 1_000_003
	if i%3 == 0 {
		buf = append(buf[:0], ":kw/"...)
		return strconv.AppendInt(buf, int64(k%5000), 10)
	}
	buf = append(buf[:0], "user"...)
	buf = strconv.AppendInt(buf, int64(k), 10)
	return append(buf, "@example.com"...)
}

type loadData struct {
	vs  []string
	csv string
}

// loadInput makes the rows' strings and a CSV file of the same rows.
func loadInput(b *testing.B) loadData {
	var in loadData
	in.csv = filepath.Join(b.TempDir(), "rows.csv")
	f, err := os.Create(in.csv)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var buf, line []byte
	for i := 0; i < loadRows; i++ {
		buf = benchValue(buf, i)
		in.vs = append(in.vs, string(buf))
		e, a, tx, added := loadCols(i)
		line = strconv.AppendInt(line[:0], e, 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, a, 10)
		line = append(line, ',')
		line = append(line, buf...)
		line = append(line, ',')
		line = strconv.AppendInt(line, tx, 10)
		line = append(line, ',')
		line = strconv.AppendBool(line, added)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return in
}

func loadCols(i int) (e, a, tx int64, added bool) {
	return int64(i / 8), int64(i%40 + 1), int64(1_000_000 + i/1000), i%17 != 0
}

// The machine is shared and its load changes by the second, so the
// methods are interleaved: every iteration of a benchmark runs each method
// once, in a rotating order, and each method's figure is its median (load)
// or its total (lookup) over the iterations. Compare figures of one run.

// BenchmarkLoad loads the same 500k rows with the Loader, a raw
// duckdb-go Appender.AppendRow loop, DuckDB's COPY FROM CSV and two
// Loaders on halves, each into a freshly created table of one database.
func BenchmarkLoad(b *testing.B) {
	in := loadInput(b)
	be := openT(b, drivers.Config{Backend: "bench-load"})
	s := drivertest.Session(b, be)
	ctx := context.Background()

	// The raw loop goes through duckdb-go's database/sql driver on the
	// same file; the instance cache makes it share the open database.
	conn, err := ddb.NewConnector(be.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()

	spec := []drivers.TableSpec{{Name: "t", Columns: []string{"e", "a", "v", "tx", "added"}}}
	loaderRun := func(from, to int) error {
		l, err := be.NewLoader(ctx, spec)
		if err != nil {
			return err
		}
		defer l.Close()
		row := make([]any, 5)
		for i := from; i < to; i++ {
			e, a, tx, added := loadCols(i)
			row[0], row[1], row[2], row[3], row[4] = e, a, in.vs[i], tx, added
			if err := l.Append(0, row); err != nil {
				return err
			}
		}
		return l.Flush(ctx)
	}
	methods := []struct {
		name string
		run  func() error
	}{
		{"Loader", func() error { return loaderRun(0, loadRows) }},
		{"Appender", func() error {
			c, err := db.Conn(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			return c.Raw(func(dc any) error {
				a, err := ddb.NewAppenderFromConn(dc.(driver.Conn), "", "t")
				if err != nil {
					return err
				}
				row := make([]driver.Value, 5)
				for i := 0; i < loadRows; i++ {
					e, av, tx, added := loadCols(i)
					row[0], row[1], row[2], row[3], row[4] = e, av, in.vs[i], tx, added
					if err := a.AppendRow(row...); err != nil {
						a.Close()
						return err
					}
				}
				return a.Close()
			})
		}},
		{"CopyCSV", func() error {
			return s.Exec(ctx, "COPY t FROM "+quoteString(in.csv)+" (FORMAT csv, HEADER false)")
		}},
		{"Loader2x", func() error {
			errs := make(chan error, 2)
			for w := 0; w < 2; w++ {
				go func() { errs <- loaderRun(w*loadRows/2, (w+1)*loadRows/2) }()
			}
			return errors.Join(<-errs, <-errs)
		}},
	}
	b.Run("Interleaved", func(b *testing.B) {
		// Per method: wall time to the commit, wall time including the
		// CHECKPOINT that follows (it writes and compresses what the load left
		// in the WAL), and process CPU time including the checkpoint (DuckDB's
		// threads too), which shared-machine load distorts less.
		type sample struct{ commit, ckpt, cpu time.Duration }
		samples := make([][]sample, len(methods))
		for i := 0; i < b.N; i++ {
			for j := range methods {
				m := (i + j) % len(methods)
				b.StopTimer()
				drivertest.Exec(b, s, "DROP TABLE IF EXISTS t; "+datomDDL+"; CHECKPOINT")
				b.StartTimer()
				cpu0 := cpuTime()
				start := time.Now()
				if err := methods[m].run(); err != nil {
					b.Fatalf("%s: %v", methods[m].name, err)
				}
				commit := time.Since(start)
				drivertest.Exec(b, s, "CHECKPOINT")
				samples[m] = append(samples[m], sample{commit, time.Since(start), cpuTime() - cpu0})
				b.StopTimer()
				if got := drivertest.Scalar(b, s, "SELECT count(*) FROM t"); got != int64(loadRows) {
					b.Fatalf("%s loaded %v rows, want %d", methods[m].name, got, loadRows)
				}
				b.StartTimer()
			}
		}
		median := func(ss []sample, f func(sample) time.Duration) time.Duration {
			ds := make([]time.Duration, len(ss))
			for i, x := range ss {
				ds[i] = f(x)
			}
			slices.Sort(ds)
			return ds[len(ds)/2]
		}
		rate := make([]float64, len(methods))
		rateCkpt := make([]float64, len(methods))
		for m, ss := range samples {
			name := methods[m].name
			rate[m] = loadRows / median(ss, func(x sample) time.Duration { return x.commit }).Seconds()
			rateCkpt[m] = loadRows / median(ss, func(x sample) time.Duration { return x.ckpt }).Seconds()
			b.ReportMetric(rate[m]/1e6, name+"-Mrows/s")
			b.ReportMetric(rateCkpt[m]/1e6, name+"+ckpt-Mrows/s")
			b.ReportMetric(median(ss, func(x sample) time.Duration { return x.cpu }).Seconds(), name+"-cpu-s")
		}
		b.ReportMetric(rate[0]/rate[2], "Loader/CopyCSV")
		b.ReportMetric(rateCkpt[0]/rateCkpt[2], "Loader/CopyCSV+ckpt")
		b.ReportMetric(rate[0]/rate[1], "Loader/Appender")
	})
}

// cpuTime is the CPU time of the whole process, DuckDB's threads included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLookup compares a point lookup by v through Stmt.Query (rows
// counted) with the same statement through database/sql (duckdb-go, rows
// iterated), for WHERE v = ? and for the materialised-CTE form of
// WHERE v = ? AND a = ? that keeps the index scan (TestIndexLookupPlan).
// The table is built once for the sub-benchmarks.
func BenchmarkLookup(b *testing.B) {
	be := openT(b, drivers.Config{Backend: "bench-lookup"})
	s := drivertest.Session(b, be)
	drivertest.Exec(b, s, fmt.Sprintf(`CREATE TABLE t (e BIGINT, a INTEGER, v VARCHAR, tx BIGINT);
		INSERT INTO t SELECT i // 8, (i %% 40 + 1)::INTEGER, 'user' || (i * 7919 %% 1000003) || '@example.com', i // 1000 FROM range(%d) r(i);
		CREATE INDEX t_v ON t (v);
		CHECKPOINT`, lookupRows))
	key := func(i int) (string, int64) {
		k := (i * 104729) % lookupRows
		return "user" + strconv.Itoa(k*7919%1_000_003) + "@example.com", int64(k%40 + 1)
	}
	// The engine runs each call under a ceiling; both clients get one.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()

	conn, err := ddb.NewConnector(be.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()

	type lookup func(args []any) (int, error)
	stmtLookup := func(q string) lookup {
		st, err := s.Prepare(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return func(args []any) (int, error) {
			n, err := st.Query(ctx, args, nil)
			return int(n), err
		}
	}
	sqlLookup := func(q string) lookup {
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return func(args []any) (int, error) {
			rows, err := st.QueryContext(ctx, args...)
			if err != nil {
				return 0, err
			}
			n := 0
			for rows.Next() {
				n++
			}
			return n, rows.Close()
		}
	}
	const (
		qv   = "SELECT e, a, tx FROM t WHERE v = ?"
		qcte = "WITH m AS MATERIALIZED (SELECT e, a, tx FROM t WHERE v = ?) SELECT e, tx FROM m WHERE a = ?"
	)
	methods := []struct {
		name  string
		nargs int
		fn    lookup
	}{
		{"Stmt-v", 1, stmtLookup(qv)},
		{"SQL-v", 1, sqlLookup(qv)},
		{"Stmt-cte", 2, stmtLookup(qcte)},
		{"SQL-cte", 2, sqlLookup(qcte)},
	}
	b.Run("Interleaved", func(b *testing.B) {
		took := make([]time.Duration, len(methods))
		args := make([]any, 2)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			v, a := key(i)
			args[0], args[1] = v, a
			for j := range methods {
				m := &methods[(i+j)%len(methods)]
				start := time.Now()
				n, err := m.fn(args[:m.nargs])
				took[(i+j)%len(methods)] += time.Since(start)
				if err != nil || n != 1 {
					b.Fatalf("%s %q: %d rows, %v", m.name, v, n, err)
				}
			}
		}
		for m := range methods {
			b.ReportMetric(float64(b.N)/took[m].Seconds(), methods[m].name+"-ops/s")
		}
		b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "Stmt/SQL-v")
		b.ReportMetric(took[3].Seconds()/took[2].Seconds(), "Stmt/SQL-cte")
	})

	// WHERE v = ? AND a = ?, which DuckDB 1.5.6 answers with a sequential
	// scan despite the index on v.
	b.Run("TwoFilters", func(b *testing.B) {
		st, err := s.Prepare(ctx, "SELECT e, tx FROM t WHERE v = ? AND a = ?")
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		args := make([]any, 2)
		for i := 0; i < b.N; i++ {
			args[0], args[1] = key(i)
			if n, err := st.Query(ctx, args, nil); err != nil || n != 1 {
				b.Fatalf("%d rows, %v", n, err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
}
