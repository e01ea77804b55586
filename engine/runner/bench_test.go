//go:build unix

package runner

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/export"
	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	sqlitedrv "github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/config"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/mentat-spec/mentat-spec/engine/store"
	"github.com/zclconf/go-cty/cty"
)

// The engine against what a hand-written program, or the database's own
// bulk path, does with the same rows or the same query, side by side in
// one process (BENCHMARKS.md, "Engine vs native"):
//
//	go test -run '^$' -bench . -benchtime 3x ./engine/runner/
//
// The machine is shared, so every benchmark interleaves its variants: each
// iteration runs every variant once (loads) or in blocks of calls
// (lookups), in a rotating order, and each variant's figure is its median.
// Process CPU time (user+system, cgo and DuckDB's threads included; not a
// server's) is reported next to wall time: it is the steadier figure.
//
// The spec is testdata/bench-native.hcl: the quickstart's dataset and q1
// (TestBenchSpecMatchesQuickstart), at MENTAT_SPEC_BENCH_SCALE (default s:
// 991,248 datoms). MENTAT_SPEC_BENCH_GEN_DIR names a
// `mentat-spec gen` output of that scale for DuckDB's COPY (otherwise it is
// written to a temp dir). The PostgreSQL benchmark needs
// MENTAT_SPEC_PG_DSN; it creates and drops only databases named
// mentat_bench_*.

func benchScale() string {
	if s := os.Getenv("MENTAT_SPEC_BENCH_SCALE"); s != "" {
		return s
	}
	return "s"
}

func benchRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSpec is the benchmark's spec: the quickstart's dataset and q1.
func benchSpec() string {
	return filepath.Join(benchRoot(), "engine", "runner", "testdata", "bench-native.hcl")
}

// benchPlan plans the bench spec at the bench scale for one backend.
func benchPlan(b testing.TB, backend, dataDir string) (*plan.Plan, *plan.ScalePlan, *plan.Cell) {
	b.Helper()
	vars := []config.VarArg{
		{Name: "scales", Value: `["` + benchScale() + `"]`},
		{Name: "backends", Value: `["` + backend + `"]`},
		{Name: "data_dir", Value: dataDir},
	}
	spec, diags := config.Load([]string{benchSpec()}, config.Options{Vars: vars})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		b.Fatalf("bench spec: %s", diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		b.Fatalf("plan: %s", diags.Error())
	}
	sp := p.Scales[0]
	if sp.Estimated {
		// A large scale's plan counts its datoms from a sample; the
		// loads are checked against the exact count, as apply does.
		st, err := sp.Gen.Stats(context.Background(), 2)
		if err != nil {
			b.Fatal(err)
		}
		sp.Stats, sp.Estimated = st, false
	}
	return p, sp, sp.Cells[0]
}

// openStore opens the cell's backend with some options replaced (a fresh
// file path or database per variant).
func openStore(b testing.TB, sp *plan.ScalePlan, cp *plan.Cell, dataDir string, opts map[string]string) (drivers.Backend, drivers.Config) {
	b.Helper()
	bc := cp.Backend
	o := maps.Clone(bc.Options)
	maps.Copy(o, opts)
	cfg := drivers.Config{Backend: bc.Name, Scale: sp.Name, DataDir: dataDir, Options: o, Settings: bc.Settings}
	drv, ok := drivers.Default.Lookup(bc.Driver)
	if !ok {
		b.Fatalf("no driver %q", bc.Driver)
	}
	be, err := drv.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return be, cfg
}

// datomTables are the tables setup creates, dropped before a reload.
var datomTables = []string{"attrs", "log_text", "log_int", "log_real", "cur_text", "cur_int", "cur_real"}

// resetTables drops the layout's tables and runs the backend's setup.
func resetTables(b testing.TB, be drivers.Backend, bc resolve.CellBackend) {
	b.Helper()
	ctx := context.Background()
	s, err := be.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, t := range datomTables {
		if err := s.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			b.Fatal(err)
		}
	}
	if err := store.Exec(ctx, s, bc.Setup); err != nil {
		b.Fatal(err)
	}
}

// TestBenchSpecMatchesQuickstart: the bench spec reads the quickstart's
// scales, dataset, queries and embedded backends from the same files, so
// its figures are the quickstart's data and q1; its backends differ from
// the quickstart's only in where the store lives and the knobs the
// benchmark turns (PostgreSQL's protocol, io and load transaction size).
// And the spec plans.
func TestBenchSpecMatchesQuickstart(t *testing.T) {
	load := func(path string) *config.Spec {
		spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
		if !diags.HasErrors() {
			diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
		}
		if diags.HasErrors() {
			t.Fatalf("%s: %s", path, diags.Error())
		}
		return spec
	}
	quick := load(filepath.Join(benchRoot(), "examples", "quickstart.hcl"))
	bench := load(benchSpec())
	sameFile := func(what string, q, b hcl.Range) {
		t.Helper()
		qa, _ := filepath.Abs(q.Filename)
		ba, _ := filepath.Abs(b.Filename)
		if qa != ba || q.Start != b.Start {
			t.Errorf("%s: the bench spec's is at %s, the quickstart's at %s", what, b, q)
		}
	}
	for _, sc := range quick.Scales {
		bs := bench.Scale(sc.Name)
		if bs == nil {
			t.Fatalf("the bench spec lacks scale %s", sc.Name)
		}
		sameFile("scale "+sc.Name, sc.DeclRange, bs.DeclRange)
	}
	sameFile("dataset", quick.SelectedDataset().DeclRange, bench.SelectedDataset().DeclRange)
	if bench.Query("q1") == nil {
		t.Fatal("the bench spec lacks q1")
	}
	sameFile("query q1", quick.Query("q1").DeclRange, bench.Query("q1").DeclRange)

	own := []string{"path", "database", "protocol", "io"}
	xs := quick.Scale("xs")
	for _, qb := range quick.Backends {
		bb := bench.Backend(qb.Name)
		if bb == nil {
			t.Fatalf("the bench spec lacks backend %s", qb.Name)
		}
		qc, d1 := resolve.Backend(qb, quick.CellContext(config.Cell{Scale: xs, Backend: qb}, cty.NilVal), "")
		bc, d2 := resolve.Backend(bb, bench.CellContext(config.Cell{Scale: bench.Scale("xs"), Backend: bb}, cty.NilVal), "")
		if d1.HasErrors() || d2.HasErrors() {
			t.Fatalf("backend %s: %s %s", qb.Name, d1.Error(), d2.Error())
		}
		for _, c := range []*resolve.CellBackend{qc, bc} {
			for _, o := range own {
				delete(c.Options, o)
			}
			c.Load.BatchRows = 0
		}
		if fmt.Sprintf("%+v", qc) != fmt.Sprintf("%+v", bc) {
			t.Errorf("backend %s differs from examples/quickstart.hcl's beyond its store and knobs:\n%+v\nwant:\n%+v", qb.Name, bc, qc)
		}
	}
	_, sp, cp := benchPlan(t, "sqlite", t.TempDir())
	if sp.Stats.Datoms == 0 || len(cp.Scenarios) != 1 || len(cp.Scenarios[0].Points) != 2 {
		t.Errorf("bench spec plan: %d datoms, %d scenarios", sp.Stats.Datoms, len(cp.Scenarios))
	}
}

// sample is one run of one variant: wall and process CPU time, and the
// operations (datoms or calls) it covered.
type sample struct {
	wall, cpu time.Duration
	ops       int64
}

type variant struct {
	name    string
	run     func() sample
	samples []sample
}

// interleave runs every variant once per b.Loop iteration, rotating the
// order so that none always follows the same neighbour.
func interleave(b *testing.B, vs []*variant) {
	b.Helper()
	i := 0
	for b.Loop() {
		for j := range vs {
			v := vs[(i+j)%len(vs)]
			v.samples = append(v.samples, v.run())
		}
		i++
	}
}

// median of f over a variant's samples, per operation in ns.
func (v *variant) median(f func(sample) time.Duration) float64 {
	xs := make([]float64, len(v.samples))
	for i, s := range v.samples {
		xs[i] = float64(f(s)) / float64(max(s.ops, 1))
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func wallOf(s sample) time.Duration { return s.wall }
func cpuOf(s sample) time.Duration  { return s.cpu }

func (v *variant) wallNs() float64 { return v.median(wallOf) }
func (v *variant) cpuNs() float64  { return v.median(cpuOf) }

// paired is a's rate over b's (b's time per op over a's), the median over
// rounds of the ratio within each round: every variant has one sample per
// round, taken next to the others, so the machine's load drifting between
// rounds cancels out.
func paired(a, b *variant, f func(sample) time.Duration) float64 {
	perOp := func(s sample) float64 { return float64(f(s)) / float64(max(s.ops, 1)) }
	n := min(len(a.samples), len(b.samples))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = perOp(b.samples[i]) / perOp(a.samples[i])
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// reportLoads reports each variant's median datoms/s (wall) and CPU ns per
// datom, and the engine's (vs[0]) rate over each other variant's, paired
// by round.
func reportLoads(b *testing.B, vs []*variant) {
	for _, v := range vs {
		b.ReportMetric(1e3/v.wallNs(), v.name+"-Mdatoms/s")
		b.ReportMetric(v.cpuNs(), v.name+"-cpu-ns/datom")
	}
	for _, v := range vs[1:] {
		b.ReportMetric(paired(vs[0], v, wallOf), vs[0].name+"/"+v.name)
		b.ReportMetric(paired(vs[0], v, cpuOf), vs[0].name+"/"+v.name+"-cpu")
	}
}

// engineLoadVariant loads the dataset through the runner's bulk load path
// (bulkLoad: the datagen stream into the driver's Loader, with the spec's
// jobs and batch_rows) into a store fresh() makes. The wall time is
// bulkLoad's own, the figure loads.csv reports.
func engineLoadVariant(b *testing.B, name string, sp *plan.ScalePlan, lc resolve.Load,
	fresh func() (drivers.Backend, func()), after func(drivers.Backend)) *variant {
	return &variant{name: name, run: func() sample {
		be, done := fresh()
		defer done()
		bl, ok := be.(drivers.BulkLoader)
		if !ok {
			b.Fatal("the backend has no bulk loader")
		}
		c0 := cpuTime()
		res, err := store.BulkLoad(context.Background(), bl, sp.Gen, lc, 0, nil)
		if err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		wall := res.Elapsed
		if after != nil {
			t0 := time.Now()
			after(be)
			wall += time.Since(t0)
		}
		cpu := cpuTime() - c0
		if res.Datoms != sp.Stats.Datoms {
			b.Fatalf("%s loaded %d datoms, want %d", name, res.Datoms, sp.Stats.Datoms)
		}
		return sample{wall: wall, cpu: cpu, ops: res.Datoms}
	}}
}

// nativeRows are the dataset's rows, generated once and kept in memory so
// the hand-written loops pay nothing for them; past inMemoryMaxDatoms
// (about 180 bytes a row in memory: 18 GB at l) they are streamed from the
// generator batch by batch instead, as the engine's load streams them,
// and the native loops pay the generator's 45 ns a datom too.
type nativeRows struct {
	attrs [][]any
	rows  []nativeRow // stream order; nil when streamed
	gen   *datagen.Dataset
	n     int64 // rows
}

// inMemoryMaxDatoms is the largest dataset streamRows holds in memory
// (MENTAT_SPEC_BENCH_INMEM_MAX overrides it): m's 9.9M rows take about
// 1.8 GB.
func inMemoryMaxDatoms() int64 {
	if v, err := strconv.ParseInt(os.Getenv("MENTAT_SPEC_BENCH_INMEM_MAX"), 10, 64); err == nil {
		return v
	}
	return 20_000_000
}

type nativeRow struct {
	class    int
	e, a, tx int64
	v        any
	added    bool
	txEnd    bool // the last row of a generator transaction
}

func streamRows(b testing.TB, gen *datagen.Dataset) *nativeRows {
	b.Helper()
	out := &nativeRows{}
	for _, a := range gen.Attrs() {
		card := "one"
		if a.Many {
			card = "many"
		}
		out.attrs = append(out.attrs, []any{int64(a.ID), a.Ident, a.Entity, string(a.Type), card, a.Unique, a.Index})
	}
	st, err := gen.Stats(context.Background(), 1)
	if err != nil {
		b.Fatal(err)
	}
	out.n = st.Datoms
	if out.n > inMemoryMaxDatoms() {
		out.gen = gen
		b.Logf("streaming the %d rows from the generator (more than %d: MENTAT_SPEC_BENCH_INMEM_MAX)", out.n, inMemoryMaxDatoms())
		return out
	}
	if err := streamTxRows(gen, func(tx []nativeRow) error { out.rows = append(out.rows, tx...); return nil }); err != nil {
		b.Fatal(err)
	}
	out.n = int64(len(out.rows))
	return out
}

// streamTxRows hands fn each generator transaction's rows, the last one
// marked txEnd; fn must not keep the slice.
func streamTxRows(gen *datagen.Dataset, fn func(tx []nativeRow) error) error {
	var buf []nativeRow
	return gen.Stream(context.Background(), 0, gen.TxCount(), func(tx *datagen.Tx) error {
		buf = buf[:0]
		for i := range tx.Datoms {
			d := &tx.Datoms[i]
			r := nativeRow{class: int(d.V.Class()), e: d.E, a: int64(d.A), tx: d.Tx, added: d.Added}
			switch d.V.Class() {
			case datagen.ClassText:
				r.v = d.V.Str
			case datagen.ClassInt:
				r.v = d.V.Int
			default:
				r.v = d.V.Float
			}
			buf = append(buf, r)
		}
		if n := len(buf); n > 0 {
			buf[n-1].txEnd = true
		}
		return fn(buf)
	})
}

// batches calls fn for each run of rows the engine commits together:
// whole generator transactions, committed once batchRows rows are pending.
func (nr *nativeRows) batches(batchRows int, fn func(rows []nativeRow) error) error {
	if nr.rows == nil && nr.gen != nil {
		var batch []nativeRow
		err := streamTxRows(nr.gen, func(tx []nativeRow) error {
			batch = append(batch, tx...)
			if len(batch) < batchRows {
				return nil
			}
			err := fn(batch)
			batch = batch[:0]
			return err
		})
		if err == nil && len(batch) > 0 {
			err = fn(batch)
		}
		return err
	}
	start, pending := 0, 0
	for i := range nr.rows {
		pending++
		if nr.rows[i].txEnd && pending >= batchRows {
			if err := fn(nr.rows[start : i+1]); err != nil {
				return err
			}
			start, pending = i+1, 0
		}
	}
	if start < len(nr.rows) {
		return fn(nr.rows[start:])
	}
	return nil
}

// sqlitePragmas are the quickstart backend's settings as go-sqlite3 DSN
// parameters, plus the driver's default busy timeout.
func sqliteDSN(path string, settings map[string]string) string {
	q := []string{"_busy_timeout=10000"}
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		q = append(q, "_"+k+"="+url.QueryEscape(settings[k]))
	}
	return path + "?" + strings.Join(q, "&")
}

// rawConn opens a go-sqlite3 driver-level connection with the settings.
func rawConn(b testing.TB, path string, settings map[string]string) *sqlite3.SQLiteConn {
	b.Helper()
	dc, err := (&sqlite3.SQLiteDriver{}).Open(path)
	if err != nil {
		b.Fatal(err)
	}
	c := dc.(*sqlite3.SQLiteConn)
	// The engine's connections keep their plans (drivers/sqlite
	// stable_plans): so does the hand-written loop it is compared with.
	if err := sqlitedrv.StablePlans(c); err != nil {
		b.Fatal(err)
	}
	prag := map[string]string{"busy_timeout": "10000"}
	maps.Copy(prag, settings)
	for _, k := range slices.Sorted(maps.Keys(prag)) {
		if _, err := c.ExecContext(context.Background(), "PRAGMA "+k+" = "+prag[k], nil); err != nil {
			b.Fatal(err)
		}
	}
	return c
}

func tableNames(lc resolve.Load) []string {
	names := []string{lc.Tables["attrs"]}
	for _, cl := range datagen.ClassNames {
		names = append(names, lc.Tables[cl])
	}
	return names
}

func insertSQL(table string, cols []string, rows int) string {
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")"
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + strings.TrimSuffix(strings.Repeat(tuple+",", rows), ",")
}

// sqliteNativeLoads are the hand-written loops on the same rows, each into
// a fresh file with the quickstart's schema and settings, committing the
// same row ranges as the engine.
func sqliteNativeLoads(b *testing.B, nr *nativeRows, bc resolve.CellBackend, dir string) []*variant {
	ctx := context.Background()
	tables := tableNames(bc.Load)
	n := nr.n
	seq := 0
	freshFile := func() string {
		seq++
		return filepath.Join(dir, fmt.Sprintf("native-%d.sqlite", seq))
	}
	schema := func(exec func(string) error) {
		for _, t := range bc.Setup {
			for _, st := range sqltext.Statements(t) {
				if err := exec(st); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	removeFile := func(path string) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}

	// database/sql, one connection, INSERTs prepared per transaction: what
	// MEASURED.md's 0.74M rows/s loop does.
	databaseSQL := func() sample {
		path := freshFile()
		defer removeFile(path)
		db, err := sql.Open("sqlite3", sqliteDSN(path, bc.Settings))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		schema(func(s string) error { _, err := db.Exec(s); return err })
		c0, t0 := cpuTime(), time.Now()
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		st, err := tx.Prepare(insertSQL(tables[0], store.AttrColumns, 1))
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range nr.attrs {
			if _, err := st.Exec(r...); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		err = nr.batches(bc.Load.BatchRows, func(rows []nativeRow) error {
			tx, err := db.Begin()
			if err != nil {
				return err
			}
			var sts [3]*sql.Stmt
			for i := range sts {
				if sts[i], err = tx.Prepare(insertSQL(tables[1+i], store.DatomColumns, 1)); err != nil {
					return err
				}
			}
			for i := range rows {
				r := &rows[i]
				if _, err := sts[r.class].Exec(r.e, r.a, r.v, r.tx, r.added); err != nil {
					return err
				}
			}
			return tx.Commit()
		})
		if err != nil {
			b.Fatal(err)
		}
		return sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: n}
	}

	// go-sqlite3's driver-level statement, one row per INSERT: the leanest
	// hand-written prepared-insert loop.
	driverLoop := func(rowsPerInsert int) func() sample {
		return func() sample {
			path := freshFile()
			defer removeFile(path)
			c := rawConn(b, path, bc.Settings)
			defer c.Close()
			schema(func(s string) error { _, err := c.ExecContext(ctx, s, nil); return err })
			prep := func(sql string) *sqlite3.SQLiteStmt {
				ds, err := c.PrepareContext(ctx, sql)
				if err != nil {
					b.Fatal(err)
				}
				return ds.(*sqlite3.SQLiteStmt)
			}
			named := func(n int) []driver.NamedValue {
				a := make([]driver.NamedValue, n)
				for i := range a {
					a[i].Ordinal = i + 1
				}
				return a
			}
			exec := func(st *sqlite3.SQLiteStmt, args []driver.NamedValue) error {
				if rowsPerInsert == 1 {
					_, err := st.ExecContext(ctx, args)
					return err
				}
				// As the engine's loader: the query path binds and steps
				// in one cgo call.
				rs, err := st.QueryContext(ctx, args)
				if err != nil {
					return err
				}
				if err := rs.Next(nil); err != io.EOF {
					return fmt.Errorf("insert: %v", err)
				}
				return rs.Close()
			}
			c0, t0 := cpuTime(), time.Now()
			attrSt := prep(insertSQL(tables[0], store.AttrColumns, 1))
			defer attrSt.Close()
			var single, multi [3]*sqlite3.SQLiteStmt
			var buf [3][]driver.NamedValue
			var nbuf [3]int
			for i := range single {
				single[i] = prep(insertSQL(tables[1+i], store.DatomColumns, 1))
				defer single[i].Close()
				if rowsPerInsert > 1 {
					multi[i] = prep(insertSQL(tables[1+i], store.DatomColumns, rowsPerInsert))
					defer multi[i].Close()
					buf[i] = named(5 * rowsPerInsert)
				}
			}
			one := named(5)
			if _, err := c.ExecContext(ctx, "BEGIN", nil); err != nil {
				b.Fatal(err)
			}
			attrArgs := named(len(store.AttrColumns))
			for _, r := range nr.attrs {
				for i, v := range r {
					attrArgs[i].Value = v
				}
				if _, err := attrSt.ExecContext(ctx, attrArgs); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := c.ExecContext(ctx, "COMMIT", nil); err != nil {
				b.Fatal(err)
			}
			err := nr.batches(bc.Load.BatchRows, func(rows []nativeRow) error {
				if _, err := c.ExecContext(ctx, "BEGIN", nil); err != nil {
					return err
				}
				for i := range rows {
					r := &rows[i]
					if rowsPerInsert == 1 {
						one[0].Value, one[1].Value, one[2].Value, one[3].Value, one[4].Value = r.e, r.a, r.v, r.tx, r.added
						if err := exec(single[r.class], one); err != nil {
							return err
						}
						continue
					}
					a := buf[r.class][nbuf[r.class]*5:]
					a[0].Value, a[1].Value, a[2].Value, a[3].Value, a[4].Value = r.e, r.a, r.v, r.tx, r.added
					nbuf[r.class]++
					if nbuf[r.class] == rowsPerInsert {
						nbuf[r.class] = 0
						if err := exec(multi[r.class], buf[r.class]); err != nil {
							return err
						}
					}
				}
				for cl := range nbuf {
					for k := 0; k < nbuf[cl]; k++ {
						copy(one, buf[cl][k*5:k*5+5])
						for j := range one {
							one[j].Ordinal = j + 1
						}
						if err := exec(single[cl], one); err != nil {
							return err
						}
					}
					nbuf[cl] = 0
				}
				_, err := c.ExecContext(ctx, "COMMIT", nil)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			return sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: n}
		}
	}
	return []*variant{
		{name: "database_sql", run: databaseSQL},
		{name: "go-sqlite3", run: driverLoop(1)},
		{name: "go-sqlite3-64row", run: driverLoop(64)},
	}
}

// BenchmarkLoadSQLite: the engine's bulk load into SQLite against
// hand-written go-sqlite3 prepared-insert loops on the same rows, same
// schema, settings and transactions (issues 1 and 4).
func BenchmarkLoadSQLite(b *testing.B) {
	dir := b.TempDir()
	_, sp, cp := benchPlan(b, "sqlite", dir)
	bc := cp.Backend
	nr := streamRows(b, sp.Gen)
	seq := 0
	fresh := func() (drivers.Backend, func()) {
		seq++
		path := filepath.Join(dir, fmt.Sprintf("engine-%d.sqlite", seq))
		be, _ := openStore(b, sp, cp, dir, map[string]string{"path": path})
		resetTables(b, be, bc)
		return be, func() {
			be.Close()
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(path + suffix)
			}
		}
	}
	vs := append([]*variant{engineLoadVariant(b, "engine", sp, bc.Load, fresh, nil)}, sqliteNativeLoads(b, nr, bc, dir)...)
	interleave(b, vs)
	reportLoads(b, vs)
}

// genDir returns a `mentat-spec gen` output of the bench scale.
func genDir(b testing.TB, gen *datagen.Dataset) string {
	if d := os.Getenv("MENTAT_SPEC_BENCH_GEN_DIR"); d != "" {
		return d
	}
	d := b.TempDir()
	if err := export.Write(context.Background(), gen, d, export.Options{Shards: 1}); err != nil {
		b.Fatal(err)
	}
	return d
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// BenchmarkLoadDuckDB: the engine's bulk load into DuckDB against DuckDB's
// COPY ... FROM of the same rows as `mentat-spec gen` CSV files, each into
// a fresh file with the quickstart's schema; both followed by a CHECKPOINT,
// timed with the load (issue 4).
func BenchmarkLoadDuckDB(b *testing.B) {
	dir := b.TempDir()
	_, sp, cp := benchPlan(b, "duckdb", dir)
	bc := cp.Backend
	gd := genDir(b, sp.Gen)
	ctx := context.Background()
	seq := 0
	fresh := func() (drivers.Backend, func()) {
		seq++
		path := filepath.Join(dir, fmt.Sprintf("load-%d.duckdb", seq))
		be, _ := openStore(b, sp, cp, dir, map[string]string{"path": path})
		resetTables(b, be, bc)
		return be, func() {
			be.Close()
			os.Remove(path)
			os.Remove(path + ".wal")
		}
	}
	exec := func(be drivers.Backend, stmts ...string) {
		s, err := be.Session(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for _, st := range stmts {
			if err := s.Exec(ctx, st); err != nil {
				b.Fatalf("%s: %v", st, err)
			}
		}
	}
	checkpoint := func(be drivers.Backend) { exec(be, "CHECKPOINT") }
	engine := engineLoadVariant(b, "engine", sp, bc.Load, fresh, checkpoint)
	// The same with one transaction: DuckDB then writes full row groups
	// straight to the file, as COPY does, instead of to the WAL first.
	oneTx := bc.Load
	oneTx.BatchRows = int(sp.Stats.Datoms) + 1
	engineOneTx := engineLoadVariant(b, "engine-1tx", sp, oneTx, fresh, checkpoint)
	copyFrom := &variant{name: "copy", run: func() sample {
		be, done := fresh()
		defer done()
		stmts := []string{"COPY " + bc.Load.Tables["attrs"] + " FROM " + sqlString(filepath.Join(gd, "schema.csv")) + " (FORMAT csv, HEADER true)"}
		for _, cl := range datagen.ClassNames {
			stmts = append(stmts, "COPY "+bc.Load.Tables[cl]+" FROM "+sqlString(filepath.Join(gd, "datoms-"+cl+"-*.csv"))+" (FORMAT csv, HEADER false)")
		}
		stmts = append(stmts, "CHECKPOINT")
		c0, t0 := cpuTime(), time.Now()
		exec(be, stmts...)
		return sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: sp.Stats.Datoms}
	}}
	vs := []*variant{engine, copyFrom, engineOneTx}
	interleave(b, vs)
	reportLoads(b, vs)
}

// pgDatabaseURL returns dsn pointing at database db, for psql.
func pgDatabaseURL(dsn, db string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

// BenchmarkLoadPostgres: the engine's bulk load into PostgreSQL (the
// quickstart's 2 COPY jobs; and 1 job) against psql's \copy of the
// `mentat-spec gen` CSV files, one session, file after file, each into
// freshly created tables (issue 4). Wall time only means something here:
// the server's CPU is not the process's.
func BenchmarkLoadPostgres(b *testing.B) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		b.Skip("MENTAT_SPEC_PG_DSN is unset (scripts/pg.sh up prints one)")
	}
	dir := b.TempDir()
	_, sp, cp := benchPlan(b, "postgres", dir)
	bc := cp.Backend
	gd := genDir(b, sp.Gen)
	ctx := context.Background()
	store := func(db string) func() (drivers.Backend, func()) {
		be, _ := openStore(b, sp, cp, dir, map[string]string{"dsn": dsn, "database": db})
		b.Cleanup(func() {
			if err := be.(drivers.Dropper).Drop(ctx); err != nil {
				b.Errorf("dropping %s: %v", db, err)
			}
			be.Close()
		})
		return func() (drivers.Backend, func()) {
			resetTables(b, be, bc)
			return be, func() {}
		}
	}
	prefix := fmt.Sprintf("mentat_bench_load_%d_", os.Getpid())
	engine := engineLoadVariant(b, "engine", sp, bc.Load, store(prefix+"engine"), nil)
	one := bc.Load
	one.Jobs = 1
	engine1 := engineLoadVariant(b, "engine-1job", sp, one, store(prefix+"engine1"), nil)
	// One transaction per job, as \copy commits one per file.
	oneTx := bc.Load
	oneTx.BatchRows = int(sp.Stats.Datoms) + 1
	engineOneTx := engineLoadVariant(b, "engine-1tx", sp, oneTx, store(prefix+"engine1tx"), nil)
	vs := []*variant{engine, engine1, engineOneTx}
	if psql, err := exec.LookPath("psql"); err == nil {
		fresh := store(prefix + "copy")
		target := pgDatabaseURL(dsn, prefix+"copy")
		args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", target,
			"-c", `\copy ` + bc.Load.Tables["attrs"] + " FROM " + sqlString(filepath.Join(gd, "schema.csv")) + " (FORMAT csv, HEADER true)"}
		for _, cl := range datagen.ClassNames {
			files, _ := filepath.Glob(filepath.Join(gd, "datoms-"+cl+"-*.csv"))
			for _, f := range files {
				args = append(args, "-c", `\copy `+bc.Load.Tables[cl]+" FROM "+sqlString(f)+" (FORMAT csv)")
			}
		}
		vs = append(vs, &variant{name: "psql-copy", run: func() sample {
			fresh()
			c0, t0 := cpuTime(), time.Now()
			cmd := exec.Command(psql, args...)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("psql: %v: %s", err, out)
			}
			wall := time.Since(t0)
			ps := cmd.ProcessState
			return sample{wall: wall, cpu: cpuTime() - c0 + ps.UserTime() + ps.SystemTime(), ops: sp.Stats.Datoms}
		}})
	} else {
		b.Log("psql not found: no \\copy variant")
	}
	interleave(b, vs)
	reportLoads(b, vs)
}

// loadedCell loads the quickstart at the bench scale into a store through
// the runner (prepareStore: setup, bulk load, after_load, ANALYZE) and binds
// its queries, as a run does before measuring.
func loadedCell(b testing.TB, backend string, opts map[string]string) *cell {
	b.Helper()
	dir := b.TempDir()
	p, sp, cp := benchPlan(b, backend, filepath.Join(dir, "data"))
	maps.Copy(cp.Backend.Options, opts)
	rd, err := results.Open(filepath.Join(dir, "results"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rd.Close() })
	r := &run{opts: Options{Registry: drivers.Default, DataDir: filepath.Join(dir, "data"), Phase: PhaseAll, Log: io.Discard, Workers: 2},
		plan: p, dir: rd, out: &Outcome{}}
	c := &cell{run: r, pc: cp}
	r.sink = results.Tee(rd)
	ctx := context.Background()
	drv, _ := drivers.Default.Lookup(cp.Backend.Driver)
	cfg := drivers.Config{Backend: cp.Backend.Name, Scale: sp.Name, DataDir: r.opts.DataDir, Options: cp.Backend.Options, Settings: cp.Backend.Settings}
	c.drv, c.cfg = drv, cfg
	if c.be, err = drv.Open(ctx, cfg); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.be.Close() })
	if c.admin, err = c.be.Session(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.admin.Close() })
	if backend == "postgres" {
		b.Cleanup(func() {
			if err := c.be.(drivers.Dropper).Drop(ctx); err != nil {
				b.Errorf("dropping the bench database: %v", err)
			}
		})
	}
	ready, err := c.prepareStore(ctx)
	if err != nil || !ready {
		b.Fatalf("loading: ready=%v %v %v", ready, err, r.out.Failures)
	}
	if err := c.bindQueries(); err != nil {
		b.Fatal(err)
	}
	return c
}

// runBlocks is the lookup benchmarks' loop: per b.Loop iteration, rounds
// rounds of one block per variant, each round in a new random order (a
// fixed seed). A rotating order kept each variant behind the same one,
// whose connection and cache footprint it inherited at every block.
func runBlocks(b *testing.B, vs []*variant, rounds int) {
	rng := rand.New(rand.NewPCG(1, 2))
	order := make([]int, len(vs))
	for i := range order {
		order[i] = i
	}
	for b.Loop() {
		for r := 0; r < rounds; r++ {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, k := range order {
				vs[k].samples = append(vs[k].samples, vs[k].run())
			}
		}
	}
}

// loopBlock times n calls of fn.
func loopBlock(b *testing.B, name string, n int, fn func(i int) error) sample {
	c0, t0 := cpuTime(), time.Now()
	for i := 0; i < n; i++ {
		if err := fn(i); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	return sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: int64(n)}
}

// runPointBlock runs one measure.RunPoint of about n calls per client, as
// the runner measures a point (its probe ceiling on), and returns the
// measured window's wall time and the process CPU time of the whole call.
func runPointBlock(b *testing.B, name string, n int, probe time.Duration, calls ...measure.Call) sample {
	c0 := cpuTime()
	res, err := measure.RunPoint(context.Background(), measure.Sampling{MinSamples: n, MaxDuration: time.Minute, Probe: probe},
		[]measure.Stream{{Op: "read", Calls: calls}})
	cpu := cpuTime() - c0
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	r := res[0]
	if r.Errors > 0 || r.Count == 0 {
		b.Fatalf("%s: %d calls, %d errors, first: %s", name, r.Count, r.Errors, r.FirstError)
	}
	// With several clients, wall per op is the measured window over all
	// their calls: the inverse of the throughput.
	return sample{wall: r.Elapsed, cpu: cpu, ops: r.Count}
}

// reportCalls reports each variant's median ops/s (wall) and CPU ns per
// call, and vs[ref]'s rate over each other variant's, paired by round.
func reportCalls(b *testing.B, vs []*variant, ref int) {
	for _, v := range vs {
		b.ReportMetric(1e9/v.wallNs(), v.name+"-ops/s")
		b.ReportMetric(v.cpuNs(), v.name+"-cpu-ns/op")
	}
	for i, v := range vs {
		if i != ref {
			b.ReportMetric(paired(vs[ref], v, wallOf), vs[ref].name+"/"+v.name)
			b.ReportMetric(paired(vs[ref], v, cpuOf), vs[ref].name+"/"+v.name+"-cpu")
		}
	}
}

// BenchmarkQ1SQLite: q1 through the engine (measure.RunPoint calling the
// runner's client: params binding, then the driver's Stmt.Query, rows
// counted) against hand-written go-sqlite3 loops on the same loaded store,
// the same SQL text and settings, each on its own connection, keys drawn
// in advance by the same generator (issue 3).
func BenchmarkQ1SQLite(b *testing.B) {
	c := loadedCell(b, "sqlite", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := c.queries["q1"]
	var probe time.Duration
	for _, sc := range c.pc.Scenarios {
		if sc.Name == "point_lookup" {
			probe = sc.Sampling.Probe
		}
	}
	cl, err := c.openClient(ctx, []string{"q1"}, 0, c.pc.Scale.Gen.Seed, true)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	keys := make([]string, 8192)
	kc := q.binder.Client(c.pc.Scale.Gen.Seed+1, 0)
	for i := range keys {
		keys[i] = kc.Next()[0].(string)
	}
	path, settings := c.pc.Backend.Options["path"], c.pc.Backend.Settings

	raw := rawConn(b, path, settings)
	defer raw.Close()
	ds, err := raw.PrepareContext(ctx, q.bound.SQL)
	if err != nil {
		b.Fatal(err)
	}
	rawSt := ds.(*sqlite3.SQLiteStmt)
	defer rawSt.Close()
	rawArgs := []driver.NamedValue{{Ordinal: 1}}
	vals := make([]driver.Value, 2)
	rawQuery := func(ctx context.Context, key string, dest []driver.Value) error {
		rawArgs[0].Value = key
		rs, err := rawSt.QueryContext(ctx, rawArgs)
		if err != nil {
			return err
		}
		n := 0
		for {
			if err = rs.Next(dest); err != nil {
				break
			}
			n++
		}
		rs.Close()
		if err != io.EOF || n != 1 {
			return fmt.Errorf("%d rows, %v", n, err)
		}
		return nil
	}

	db, err := sql.Open("sqlite3", sqliteDSN(path, settings))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	sqlConn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := sqlConn.Raw(func(dc any) error { return sqlitedrv.StablePlans(dc.(*sqlite3.SQLiteConn)) }); err != nil {
		b.Fatal(err)
	}
	sqlConn.Close() // back to the pool of one: the prepared statement below uses it
	pst, err := db.Prepare(q.bound.SQL)
	if err != nil {
		b.Fatal(err)
	}
	defer pst.Close()
	var e int64
	var name string

	// The driver's statement alone, on a session of its own, with the
	// engine's kind of context: the engine's path minus params and RunPoint.
	drvSess, err := c.be.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer drvSess.Close()
	drvSt, err := drvSess.Prepare(ctx, q.bound.SQL)
	if err != nil {
		b.Fatal(err)
	}
	keyArg := make([]any, 1)
	bg := context.Background()

	const n = 4000 // calls per block: about 60 ms
	k := 0
	next := func() string { k++; return keys[k%len(keys)] }
	vs := []*variant{
		{name: "engine", run: func() sample { return runPointBlock(b, "engine", n, probe, cl.Call) }},
		{name: "engine-call", run: func() sample {
			return loopBlock(b, "engine-call", n, func(int) error { return cl.Call(ctx) })
		}},
		{name: "driver", run: func() sample {
			return loopBlock(b, "driver", n, func(int) error {
				keyArg[0] = next()
				_, err := drvSt.Query(ctx, keyArg, nil)
				return err
			})
		}},
		{name: "go-sqlite3", run: func() sample {
			return loopBlock(b, "go-sqlite3", n, func(int) error { return rawQuery(bg, next(), vals) })
		}},
		{name: "go-sqlite3-count", run: func() sample {
			return loopBlock(b, "go-sqlite3-count", n, func(int) error { return rawQuery(bg, next(), nil) })
		}},
		{name: "go-sqlite3-count-ctx", run: func() sample {
			return loopBlock(b, "go-sqlite3-count-ctx", n, func(int) error { return rawQuery(ctx, next(), nil) })
		}},
		{name: "database_sql", run: func() sample {
			return loopBlock(b, "database_sql", n, func(int) error { return pst.QueryRow(next()).Scan(&e, &name) })
		}},
	}
	// Warm every connection's page cache.
	for _, v := range vs {
		v.run()
		v.samples = nil
	}
	runBlocks(b, vs, 20)
	reportCalls(b, vs, 0)
}

// noopBackend is a driver whose statements do nothing: the engine's own
// cost per call.
type noopBackend struct{}

func (noopBackend) Dialect() string                                  { return "sqlite" }
func (noopBackend) Placeholder(int) string                           { return "?" }
func (noopBackend) Created() bool                                    { return false }
func (noopBackend) Session(context.Context) (drivers.Session, error) { return noopSession{}, nil }
func (noopBackend) Close() error                                     { return nil }

type noopSession struct{}

func (noopSession) Exec(context.Context, string) error                    { return nil }
func (noopSession) Prepare(context.Context, string) (drivers.Stmt, error) { return noopStmt{}, nil }
func (noopSession) Close() error                                          { return nil }

type noopStmt struct{}

var errArgs = errors.New("want one argument")

func (noopStmt) Query(_ context.Context, args []any, _ *[][]any) (int64, error) {
	if len(args) != 1 {
		return 0, errArgs
	}
	return 1, nil
}
func (noopStmt) Close() error { return nil }

func (noopBackend) NewLoader(context.Context, []drivers.TableSpec) (drivers.Loader, error) {
	return &noopLoader{}, nil
}

// noopLoader keeps nothing; it reads the values as a driver would.
type noopLoader struct{ n, sum int64 }

func (l *noopLoader) Append(_ int, row []any) error {
	l.n++
	if e, ok := row[0].(int64); ok {
		l.sum += e
	}
	return nil
}
func (l *noopLoader) Flush(context.Context) error { return nil }
func (l *noopLoader) Close() error                { return nil }

// BenchmarkLoadOverhead: the engine's own cost per datom of a bulk load
// (bulkLoad with the quickstart's settings: the datagen stream, the rows
// handed to the driver) into a loader that keeps nothing; against the
// datagen stream alone.
func BenchmarkLoadOverhead(b *testing.B) {
	_, sp, cp := benchPlan(b, "sqlite", b.TempDir())
	ctx := context.Background()
	var mallocs, datoms uint64
	vs := []*variant{
		{name: "bulkload", run: func() sample {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			c0, t0 := cpuTime(), time.Now()
			res, err := store.BulkLoad(ctx, noopBackend{}, sp.Gen, cp.Backend.Load, 0, nil)
			if err != nil || res.Datoms != sp.Stats.Datoms {
				b.Fatalf("%d datoms, %v", res.Datoms, err)
			}
			s := sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: res.Datoms}
			runtime.ReadMemStats(&m1)
			mallocs += m1.Mallocs - m0.Mallocs
			datoms += uint64(res.Datoms)
			return s
		}},
		{name: "stream", run: func() sample {
			c0, t0 := cpuTime(), time.Now()
			var n int64
			err := sp.Gen.Stream(ctx, 0, sp.Gen.TxCount(), func(tx *datagen.Tx) error { n += int64(len(tx.Datoms)); return nil })
			if err != nil {
				b.Fatal(err)
			}
			return sample{wall: time.Since(t0), cpu: cpuTime() - c0, ops: n}
		}},
	}
	runBlocks(b, vs, 3)
	for _, v := range vs {
		b.ReportMetric(v.cpuNs(), v.name+"-cpu-ns/datom")
	}
	b.ReportMetric(float64(mallocs)/float64(datoms), "bulkload-allocs/datom")
}

// BenchmarkOverheadQ1: the engine's CPU per call with a no-op driver, q1's
// parameters (a random user's email) made per call (issue 2). stmt is the
// floor (the driver call alone, fixed arguments); call adds the runner's
// client (params binding); runpoint-noop is engine/measure's loop around a
// call that does nothing; runpoint-call is the engine's whole per-call path.
func BenchmarkOverheadQ1(b *testing.B) {
	p, sp, cp := benchPlan(b, "sqlite", b.TempDir())
	r := &run{opts: Options{Registry: drivers.Default, Log: io.Discard}, plan: p, out: &Outcome{}}
	c := &cell{run: r, pc: cp, be: noopBackend{}}
	if err := c.bindQueries(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl, err := c.openClient(ctx, []string{"q1"}, 0, sp.Gen.Seed, true)
	if err != nil {
		b.Fatal(err)
	}
	cl2, err := c.openClient(ctx, []string{"q1"}, 1, sp.Gen.Seed, true)
	if err != nil {
		b.Fatal(err)
	}
	// The driver's call alone: q1 prepared on a session of its own.
	sess, err := c.be.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	st, err := sess.Prepare(ctx, c.queries["q1"].bound.SQL)
	if err != nil {
		b.Fatal(err)
	}
	args := []any{"user1@example.com"}
	noop := measure.Call(func(context.Context) error { return nil })
	const n = 200_000
	probe := 20 * time.Second
	vs := []*variant{
		{name: "stmt", run: func() sample {
			return loopBlock(b, "stmt", n, func(int) error { _, err := st.Query(ctx, args, nil); return err })
		}},
		{name: "call", run: func() sample { return loopBlock(b, "call", n, func(int) error { return cl.Call(ctx) }) }},
		{name: "runpoint-noop", run: func() sample { return runPointBlock(b, "runpoint-noop", n, probe, noop) }},
		{name: "runpoint-call", run: func() sample { return runPointBlock(b, "runpoint-call", n, probe, cl.Call) }},
		{name: "runpoint-call-2clients", run: func() sample {
			return runPointBlock(b, "runpoint-call-2clients", n, probe, cl.Call, cl2.Call)
		}},
	}
	runBlocks(b, vs, 5)
	for _, v := range vs {
		b.ReportMetric(v.cpuNs(), v.name+"-cpu-ns/op")
		b.ReportMetric(v.wallNs(), v.name+"-wall-ns/op")
	}
	b.ReportMetric(vs[3].cpuNs()-vs[0].cpuNs(), "engine-overhead-cpu-ns/op")
}

// BenchmarkQ1Postgres: q1 through the engine (RunPoint calling the
// runner's clients, as point_lookup at 1 and 2 clients; the bench spec's
// backend, so the driver's default io=auto, and io=poller) against pgbench
// running the same SELECT with a random user's email, -M prepared and
// -M simple, on the same database loaded through the runner (issue 5).
// Blocks alternate: about n calls of each variant in turn. cpu-ns/op is
// the client's CPU per query (this process, or the pgbench process), not
// the server's: on 2 cores the client's CPU is what limits the rate.
func BenchmarkQ1Postgres(b *testing.B) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		b.Skip("MENTAT_SPEC_PG_DSN is unset (scripts/pg.sh up prints one)")
	}
	db := fmt.Sprintf("mentat_bench_q1_%d", os.Getpid())
	c := loadedCell(b, "postgres", map[string]string{"dsn": dsn, "database": db})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var probe time.Duration
	for _, sc := range c.pc.Scenarios {
		if sc.Name == "point_lookup" {
			probe = sc.Sampling.Probe
		}
	}
	// clients opens k engine clients on a backend with some options
	// replaced (protocol, io), as a run with those options would.
	clients := func(k int, opts map[string]string) []measure.Call {
		cc := cell{pc: c.pc, drv: c.drv, be: c.be, queries: c.queries}
		if opts != nil {
			be, _ := openStore(b, c.pc.Scale, c.pc, "", opts)
			b.Cleanup(func() { be.Close() })
			cc.be = be
		}
		var calls []measure.Call
		for i := 0; i < k; i++ {
			cl, err := cc.openClient(ctx, []string{"q1"}, i, c.pc.Scale.Gen.Seed, true)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(cl.Close)
			calls = append(calls, cl.Call)
		}
		return calls
	}
	const n = 3000 // calls per block and variant: about 0.3 to 1 s
	engine := func(name string, calls []measure.Call) *variant {
		return &variant{name: name, run: func() sample { return runPointBlock(b, name, n, probe, calls...) }}
	}
	vs := []*variant{
		engine("engine-c1", clients(1, nil)),
		engine("engine-c2", clients(2, nil)),
		engine("engine-simple-c1", clients(1, map[string]string{"protocol": "simple"})),
		engine("engine-simple-c2", clients(2, map[string]string{"protocol": "simple"})),
		engine("engine-poller-c1", clients(1, map[string]string{"io": "poller"})),
		engine("engine-poller-c2", clients(2, map[string]string{"io": "poller"})),
	}
	pgbench := os.Getenv("PGBENCH")
	if pgbench == "" {
		pgbench = "/usr/lib/postgresql/15/bin/pgbench"
	}
	if _, err := os.Stat(pgbench); err == nil {
		var rows [][]any
		st, err := c.admin.Prepare(ctx, "SELECT count(*) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'user/email')")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Query(ctx, nil, &rows); err != nil {
			b.Fatal(err)
		}
		st.Close()
		users := rows[0][0].(int64)
		q1, err := os.ReadFile(filepath.Join(benchRoot(), "specs", "mentat", "sql", "q1.sql"))
		if err != nil {
			b.Fatal(err)
		}
		// The engine draws a uniformly random user's seq("user%d@example.com").
		script := filepath.Join(b.TempDir(), "q1.pgbench")
		text := fmt.Sprintf("\\set uid random(0, %d)\n%s;\n", users-1,
			strings.Replace(string(q1), ":email", "('user' || :uid || '@example.com')", 1))
		if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		target := pgDatabaseURL(dsn, db)
		for _, mode := range []string{"prepared", "simple"} {
			for _, k := range []int{1, 2} {
				name := fmt.Sprintf("pgbench-%s-c%d", mode, k)
				vs = append(vs, &variant{name: name, run: func() sample {
					cmd := exec.Command(pgbench, "-n", "-M", mode, "-c", fmt.Sprint(k), "-j", fmt.Sprint(k),
						"-t", fmt.Sprint(n/k), "-f", script, target)
					out, err := cmd.CombinedOutput()
					if err != nil {
						b.Fatalf("%s: %v: %s", name, err, out)
					}
					var tps float64
					for _, l := range strings.Split(string(out), "\n") {
						if strings.HasPrefix(l, "tps = ") {
							fmt.Sscanf(l, "tps = %g", &tps)
						}
					}
					if tps <= 0 {
						b.Fatalf("%s: no tps in %s", name, out)
					}
					ops := int64(n / k * k)
					ps := cmd.ProcessState
					return sample{wall: time.Duration(float64(ops) / tps * 1e9), cpu: ps.UserTime() + ps.SystemTime(), ops: ops}
				}})
			}
		}
	} else {
		b.Logf("no pgbench at %s (set PGBENCH): engine variants only", pgbench)
	}
	for _, v := range vs {
		v.run()
		v.samples = nil
	}
	runBlocks(b, vs, 5)
	for _, v := range vs {
		b.ReportMetric(1e9/v.wallNs(), v.name+"-ops/s")
		b.ReportMetric(v.cpuNs(), v.name+"-cpu-ns/op")
	}
	ratio := func(a, bn string) {
		var x, y *variant
		for _, v := range vs {
			switch v.name {
			case a:
				x = v
			case bn:
				y = v
			}
		}
		if x != nil && y != nil {
			b.ReportMetric(paired(x, y, wallOf), a+"/"+bn)
			b.ReportMetric(paired(x, y, cpuOf), a+"/"+bn+"-client-cpu")
		}
	}
	for _, k := range []string{"c1", "c2"} {
		ratio("engine-"+k, "pgbench-prepared-"+k)
		ratio("engine-poller-"+k, "pgbench-prepared-"+k)
		ratio("engine-simple-"+k, "pgbench-simple-"+k)
	}
}
