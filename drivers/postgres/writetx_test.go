package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// TestExecTxControl runs write transactions with Exec's BEGIN, COMMIT and
// ROLLBACK on the counted path, next to counted statements: what commits
// stays, what rolls back does not, a failed statement leaves the
// transaction aborted until ROLLBACK, and the pair allocates nothing in
// steady state.
func TestExecTxControl(t *testing.T) {
	testDSN(t)
	for _, v := range append(rawVariants, variant{ProtocolExtended, IOPoller}) {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Exec(ctx, "CREATE TABLE w (x bigint)"); err != nil {
				t.Fatal(err)
			}
			ins, err := s.Prepare(ctx, "INSERT INTO w VALUES ($1)")
			if err != nil {
				t.Fatal(err)
			}
			count := func() int64 {
				t.Helper()
				var rows [][]any
				st, err := s.Prepare(ctx, "SELECT count(*) FROM w")
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if _, err := st.Query(ctx, nil, &rows); err != nil {
					t.Fatal(err)
				}
				return rows[0][0].(int64)
			}
			tx := func(end string, x int64) {
				t.Helper()
				if err := s.Exec(ctx, "BEGIN"); err != nil {
					t.Fatal(err)
				}
				if n, err := ins.Query(ctx, []any{x}, nil); err != nil || n != 1 {
					t.Fatalf("INSERT: %d, %v", n, err)
				}
				if err := s.Exec(ctx, end); err != nil {
					t.Fatalf("%s: %v", end, err)
				}
			}
			tx("COMMIT", 1)
			tx("ROLLBACK", 2)
			if n := count(); n != 1 {
				t.Errorf("after a commit and a rollback: %d rows, want 1", n)
			}
			if err := s.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if _, err := ins.Query(ctx, []any{"x"}, nil); err == nil {
				t.Error("a bad parameter passed")
			}
			if _, err := ins.Query(ctx, []any{int64(3)}, nil); err == nil {
				t.Error("a statement in an aborted transaction passed")
			}
			if err := s.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
			tx("COMMIT", 4)
			if n := count(); n != 2 {
				t.Errorf("after the aborted transaction: %d rows, want 2", n)
			}
			if v.io == IORaw {
				allocs := testing.AllocsPerRun(100, func() {
					_ = s.Exec(ctx, "BEGIN")
					_ = s.Exec(ctx, "COMMIT")
				})
				if allocs != 0 {
					t.Errorf("BEGIN and COMMIT: %.1f allocations, want 0", allocs)
				}
			}
		})
	}
}

// BenchmarkWriteTx runs BEGIN, one counted INSERT and COMMIT on one
// session (synchronous_commit off, so the commit waits for no flush), with
// BEGIN and COMMIT through Exec (the counted path) and through pgx's own
// Exec, in turns of 500 transactions; cpu-µs/tx is the process's CPU.
//
//	go test -run '^$' -bench WriteTx -benchtime 20000x ./drivers/postgres/
func BenchmarkWriteTx(b *testing.B) {
	testDSN(b)
	for _, v := range rawVariants {
		b.Run(v.protocol, func(b *testing.B) {
			be := openTest(b, v, map[string]string{"synchronous_commit": "off"})
			ctx := context.Background()
			s, err := be.Session(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ps := s.(*Session)
			if err := s.Exec(ctx, "CREATE TABLE w (x bigint)"); err != nil {
				b.Fatal(err)
			}
			ins, err := s.Prepare(ctx, "INSERT INTO w VALUES ($1)")
			if err != nil {
				b.Fatal(err)
			}
			paths := []struct {
				name string
				exec func(context.Context, string) error
			}{{"counted", ps.Exec}, {"pgx", ps.execPgx}}
			var cpu, wall [2]time.Duration
			var n [2]int
			args := []any{int64(0)}
			b.ResetTimer()
			for done := 0; done < b.N; {
				for i, p := range paths {
					k := min(500, b.N-done)
					c0, t0 := cpuTime(), time.Now()
					for j := 0; j < k; j++ {
						if err := writeTx(ctx, p.exec, ins, args); err != nil {
							b.Fatal(err)
						}
					}
					cpu[i] += cpuTime() - c0
					wall[i] += time.Since(t0)
					n[i] += k
				}
				done += min(500, b.N-done)
			}
			for i, p := range paths {
				if n[i] > 0 {
					b.ReportMetric(float64(cpu[i].Microseconds())/float64(n[i]), p.name+"-cpu-µs/tx")
					b.ReportMetric(float64(n[i])/wall[i].Seconds(), p.name+"-tx/s")
				}
			}
		})
	}
}

func writeTx(ctx context.Context, exec func(context.Context, string) error, ins drivers.Stmt, args []any) error {
	if err := exec(ctx, "BEGIN"); err != nil {
		return err
	}
	if _, err := ins.Query(ctx, args, nil); err != nil {
		return err
	}
	return exec(ctx, "COMMIT")
}
