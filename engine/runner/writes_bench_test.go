package runner_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// Writes through the engine against a hand-written loop of the same
// statements, and the cost of checking reads during the writes
// (BENCHMARKS.md, "Writes against pgbench -f"):
//
//	go test -run '^$' -bench 'Write' -benchtime 1x ./engine/runner/
//
// Each variant runs writeBenchSeconds per round, rounds interleaved on the
// shared machine, and reports its median over the rounds.

const (
	writeBenchSeconds = 2
	writeBenchRounds  = 3
)

const readBlock = "  read {\n    mix     = [query.q1, query.q2]\n    clients = var.mixed_readers\n  }\n"
const verifyBlock = "  verify {\n    query    = query.state_now\n    fraction = 0.1\n  }\n"

// writeThroughput applies write_mixed and returns the ops/s of op.
func writeThroughput(b *testing.B, spec, data, backend, op string) float64 {
	vars := writeVars(data, backend)
	for i := range vars {
		if vars[i].Name == "mixed_s" {
			vars[i].Value = strconv.Itoa(writeBenchSeconds)
		}
	}
	// Reload: each variant starts right after a load of the store.
	o, dir := apply(b, spec, runner.Options{Reload: true}, vars...)
	if o.Failed() {
		b.Fatalf("write_mixed: %v %+v", o.Failures, o.Checks)
	}
	for _, r := range readCSV(b, filepath.Join(dir, "timings.csv"))[1:] {
		if r[0] == "write_mixed" && r[5] == op {
			f, _ := strconv.ParseFloat(r[11], 64)
			return f
		}
	}
	b.Fatalf("no %s row", op)
	return 0
}

// handWrites runs the write query's statements in a plain loop on one
// session for the bench duration: BEGIN, each statement, COMMIT.
func handWrites(b *testing.B, spec, data, backend string) float64 {
	ctx := context.Background()
	if o, _ := apply(b, spec, runner.Options{Phase: runner.PhaseLoad, Reload: true}, writeVars(data, backend)...); o.Failed() {
		b.Fatalf("load: %v", o.Failures)
	}
	sp, err := config.Load([]string{spec}, config.Options{Vars: writeVars(data, backend)})
	if err.HasErrors() {
		b.Fatal(err.Error())
	}
	p, diags := planbuild.Build(ctx, sp, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	scale := p.Scales[0]
	cell := scale.Cells[0]
	drv, _ := drivers.Default.Lookup(cell.Backend.Driver)
	be, oerr := drv.Open(ctx, drivers.Config{Backend: cell.Backend.Name, Scale: scale.Name, DataDir: data,
		Options: maps.Clone(cell.Backend.Options), Settings: cell.Backend.Settings})
	if oerr != nil {
		b.Fatal(oerr)
	}
	defer be.Close()
	sess, oerr := be.Session(ctx)
	if oerr != nil {
		b.Fatal(oerr)
	}
	defer sess.Close()
	var stmts []drivers.Stmt
	var names [][]string
	for _, text := range sqltext.Statements(cell.Queries["write_state"].SQL) {
		bd, err := sqltext.Bind(text, be.Placeholder)
		if err != nil {
			b.Fatal(err)
		}
		st, err := sess.Prepare(ctx, bd.SQL)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		stmts, names = append(stmts, st), append(names, bd.Names)
	}
	args := make([][]any, len(stmts))
	n := 0
	start := time.Now()
	for k := int64(1_000_000); time.Since(start) < writeBenchSeconds*time.Second; k++ {
		op, err := scale.Writes.Op("state_change", k)
		if err != nil {
			b.Fatal(err)
		}
		for i, ns := range names {
			args[i] = args[i][:0]
			for _, nm := range ns {
				switch nm {
				case "e":
					args[i] = append(args[i], op.E)
				case "a":
					args[i] = append(args[i], int64(op.A))
				case "v":
					args[i] = append(args[i], op.Value.Any())
				case "tx":
					args[i] = append(args[i], op.Tx)
				}
			}
		}
		if err := sess.Exec(ctx, "BEGIN"); err != nil {
			b.Fatal(err)
		}
		for i, st := range stmts {
			if _, err := st.Query(ctx, args[i], nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := sess.Exec(ctx, "COMMIT"); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkWriteTx: write transactions/s, one writer and no readers,
// through the engine (write_mixed) and by hand.
func BenchmarkWriteTx(b *testing.B) {
	for _, be := range writeBackends() {
		b.Run(be, func(b *testing.B) {
			spec, data := writeQuickstart(b, readBlock, "", verifyBlock, "")
			var engine, hand []float64
			for i := 0; i < writeBenchRounds; i++ {
				engine = append(engine, writeThroughput(b, spec, data, be, results.OpWrite))
				hand = append(hand, handWrites(b, spec, data, be))
			}
			e, h := median(engine), median(hand)
			b.ReportMetric(e, "engine_tx/s")
			b.ReportMetric(h, "hand_tx/s")
			b.ReportMetric(e/h, "engine/hand")
			fmt.Printf("%s: engine %.0f tx/s %v, hand %.0f tx/s %v, ratio %.2f\n", be, e, engine, h, hand, e/h)
		})
	}
}

// BenchmarkVerifyCost: the readers' throughput during the writes with the
// declared verify fraction (0.1) against none.
func BenchmarkVerifyCost(b *testing.B) {
	for _, be := range writeBackends() {
		b.Run(be, func(b *testing.B) {
			on, data := writeQuickstart(b)
			off, _ := writeQuickstart(b, "fraction = 0.1", "fraction = 0")
			var with, without []float64
			for i := 0; i < writeBenchRounds; i++ {
				without = append(without, writeThroughput(b, off, data, be, results.OpRead))
				with = append(with, writeThroughput(b, on, data, be, results.OpRead))
			}
			w, wo := median(with), median(without)
			b.ReportMetric(wo, "reads/s_unchecked")
			b.ReportMetric(w, "reads/s_checked")
			b.ReportMetric(100*(1-w/wo), "cost_%")
			fmt.Printf("%s: reads/s unchecked %.0f %v, checked (10%%) %.0f %v, cost %.1f%%\n", be, wo, without, w, with, 100*(1-w/wo))
		})
	}
}

// BenchmarkVerifyCall: what one verify read costs against the readers'
// calls it follows, on a quiet store (no writer): q1 and q2 alternating
// against state_now, in interleaved blocks. At the declared fraction f the
// readers lose f * verify / read of their throughput.
func BenchmarkVerifyCall(b *testing.B) {
	ctx := context.Background()
	for _, backend := range writeBackends() {
		b.Run(backend, func(b *testing.B) {
			spec, data := writeQuickstart(b)
			if o, _ := apply(b, spec, runner.Options{Phase: runner.PhaseLoad, Reload: true}, writeVars(data, backend)...); o.Failed() {
				b.Fatalf("load: %v", o.Failures)
			}
			sp, diags := config.Load([]string{spec}, config.Options{Vars: writeVars(data, backend)})
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			p, diags := planbuild.Build(ctx, sp, plan.Drivers(drivers.Default), 2)
			if diags.HasErrors() {
				b.Fatal(diags.Error())
			}
			scale, cell := p.Scales[0], p.Scales[0].Cells[0]
			drv, _ := drivers.Default.Lookup(cell.Backend.Driver)
			be, err := drv.Open(ctx, drivers.Config{Backend: cell.Backend.Name, Scale: scale.Name, DataDir: data,
				Options: maps.Clone(cell.Backend.Options), Settings: cell.Backend.Settings})
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			sess, err := be.Session(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			prep := func(q string) (drivers.Stmt, int) {
				bd, err := sqltext.Bind(cell.Queries[q].SQL, be.Placeholder)
				if err != nil {
					b.Fatal(err)
				}
				st, err := sess.Prepare(ctx, bd.SQL)
				if err != nil {
					b.Fatal(err)
				}
				return st, len(bd.Names)
			}
			q1, _ := prep("q1")
			q2, _ := prep("q2")
			verify, nv := prep("state_now")
			op, _ := scale.Writes.Op("state_change", 0)
			vargs := make([]any, nv)
			for i := range vargs {
				vargs[i] = op.E
			}
			block := func(fn func(i int)) float64 {
				const n = 200
				t0 := time.Now()
				for i := 0; i < n; i++ {
					fn(i)
				}
				return float64(time.Since(t0).Microseconds()) / n
			}
			var reads, verifies []float64
			for r := 0; r < 5; r++ {
				reads = append(reads, block(func(i int) {
					email := []any{fmt.Sprintf("user%d@example.com", i%150)}
					st := q1
					if i%2 == 1 {
						st = q2
					}
					if _, err := st.Query(ctx, email, nil); err != nil {
						b.Fatal(err)
					}
				}))
				verifies = append(verifies, block(func(int) {
					var rows [][]any
					if _, err := verify.Query(ctx, vargs, &rows); err != nil {
						b.Fatal(err)
					}
				}))
			}
			rd, vf := median(reads), median(verifies)
			b.ReportMetric(rd, "read_us")
			b.ReportMetric(vf, "verify_us")
			b.ReportMetric(100*0.1*vf/(rd+0.1*vf), "cost_%_at_0.1")
			fmt.Printf("%s: read (q1/q2) %.0f us, verify %.0f us: cost at fraction 0.1 %.1f%% of read throughput\n", backend, rd, vf, 100*0.1*vf/(rd+0.1*vf))
		})
	}
}
