//go:build unix

package postgres

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Benchmarks compare the driver with raw pgx (and pgbench when present)
// on the same rows, side by side in one run:
//
//	export MENTAT_SPEC_PG_DSN=$(scripts/pg.sh up)
//	go test -run '^$' -bench . -benchtime 5x ./drivers/postgres/        # loads
//	go test -run '^$' -bench PointLookup -benchtime 3s ./drivers/postgres/

const (
	benchRows   = 500_000
	lookupSQL   = "SELECT e, a, v, tx FROM datoms WHERE a = $1 AND v = $2"
	datomsTable = "CREATE TABLE IF NOT EXISTS datoms (e BIGINT, a INT, v TEXT, tx BIGINT, added BOOL)"
)

var datomCols = []string{"e", "a", "v", "tx", "added"}

// benchRow is row i of the benchmark data: v is i in decimal so pgbench
// can build the same lookups.
func benchRow(i int) []any {
	return []any{int64(i), int64(i % 50), strconv.Itoa(i), int64(i / 10), i%3 != 0}
}

var (
	fixtureOnce sync.Once
	fixture     *Backend
	fixtureErr  error
)

// benchRows builds all rows, boxed once, as the load benchmarks' source.
func allBenchRows() [][]any {
	rows := make([][]any, benchRows)
	for i := range rows {
		rows[i] = benchRow(i)
	}
	return rows
}

// benchFixture opens one database per process holding datoms with the
// (a, v) index; TestMain's caller drops it at exit (see dropFixture).
func benchFixture(b *testing.B) *Backend {
	dsn := testDSN(b)
	fixtureOnce.Do(func() {
		ctx := context.Background()
		var be drivers.Backend
		be, fixtureErr = New(Name).Open(ctx, drivers.Config{Scale: "bench", Options: map[string]string{
			"dsn": dsn, "database": "mentat_bench_" + strconv.Itoa(os.Getpid())}})
		if fixtureErr != nil {
			return
		}
		fixture = be.(*Backend)
		fixtureErr = fixture.withMeta(ctx, "fixture", func(c *pgx.Conn) error {
			if _, err := c.Exec(ctx, datomsTable); err != nil {
				return err
			}
			// Generated on the fly: no rows stay on the heap for the GC to
			// scan during the lookups.
			i := 0
			src := pgx.CopyFromFunc(func() ([]any, error) {
				if i == benchRows {
					return nil, nil
				}
				i++
				return benchRow(i - 1), nil
			})
			if _, err := c.CopyFrom(ctx, pgx.Identifier{"datoms"}, datomCols, src); err != nil {
				return err
			}
			for _, q := range []string{"CREATE INDEX datoms_av ON datoms (a, v)", "VACUUM ANALYZE datoms", "CREATE TABLE load_t (LIKE datoms)"} {
				if _, err := c.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if fixtureErr != nil {
		b.Fatalf("fixture: %v", fixtureErr)
	}
	return fixture
}

func dropFixture() {
	if fixture == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fixture.Drop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "drop benchmark database: %v\n", err)
	}
}

// cpuTime is the CPU time the process used so far: the client's cost,
// which other load on the machine disturbs less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func truncateLoad(b *testing.B, be *Backend) {
	b.Helper()
	ctx := context.Background()
	err := be.withMeta(ctx, "truncate", func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "TRUNCATE load_t; CHECKPOINT")
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoad loads the same 500k rows into an empty table with raw pgx
// CopyFrom and with the Loader (one Flush at the end, or one every 50k
// rows), in turns within each b.N so load from elsewhere on the machine
// hits them alike.
func BenchmarkLoad(b *testing.B) {
	be := benchFixture(b)
	ctx := context.Background()
	rows := allBenchRows()
	loader := func(every int) func() error {
		return func() error {
			l, err := be.NewLoader(ctx, []drivers.TableSpec{{Name: "load_t", Columns: datomCols}})
			if err != nil {
				return err
			}
			defer l.Close()
			for j, row := range rows {
				if err := l.Append(0, row); err != nil {
					return err
				}
				if every > 0 && (j+1)%every == 0 {
					if err := l.Flush(ctx); err != nil {
						return err
					}
				}
			}
			return l.Flush(ctx)
		}
	}
	variants := []struct {
		name string
		load func() error
	}{
		{"pgx-CopyFrom", func() error {
			conn, err := be.connect(ctx)
			if err != nil {
				return err
			}
			defer closeQuietly(conn)
			n, err := conn.CopyFrom(ctx, pgx.Identifier{"load_t"}, datomCols, pgx.CopyFromRows(rows))
			if err == nil && n != benchRows {
				err = fmt.Errorf("CopyFrom copied %d rows", n)
			}
			return err
		}},
		{"Loader", loader(0)},
		{"Loader-flush50k", loader(50_000)},
	}
	wall := make([]time.Duration, len(variants))
	cpu := make([]time.Duration, len(variants))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range variants {
			k = (k + i) % len(variants) // rotate the order
			v := variants[k]
			b.StopTimer()
			truncateLoad(b, be)
			b.StartTimer()
			t0, c0 := time.Now(), cpuTime()
			if err := v.load(); err != nil {
				b.Fatalf("%s: %v", v.name, err)
			}
			cpu[k] += cpuTime() - c0
			wall[k] += time.Since(t0)
		}
	}
	n := float64(b.N * benchRows)
	for k, v := range variants {
		b.ReportMetric(n/wall[k].Seconds(), v.name+"-rows/s")
		b.ReportMetric(float64(cpu[k].Nanoseconds())/n, v.name+"-cpu-ns/row")
	}
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "Loader/pgx")
}

// lookupKeys is the number of distinct lookups, spread over the table.
const lookupKeys = 10_000

// lookupArgs are (a, v) keys of rows spread over the table, boxed once.
func lookupArgs() [][]any {
	args := make([][]any, lookupKeys)
	for j := range args {
		i := (j * 7919) % benchRows
		args[j] = []any{int64(i % 50), strconv.Itoa(i)}
	}
	return args
}

// clientLoop runs b.N operations over clients goroutines, each with its
// own state from setup, and reports ops/s.
func clientLoop(b *testing.B, clients int, setup func() (op func(i int) error, done func())) {
	ops := make([]func(int) error, clients)
	for c := range ops {
		op, done := setup()
		defer done()
		ops[c] = op
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	b.ResetTimer()
	cpu0 := cpuTime()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(op func(int) error) {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if err := op(i); err != nil {
					errs <- err
					return
				}
			}
		}(ops[c])
	}
	wg.Wait()
	b.StopTimer()
	cpu := cpuTime() - cpu0
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func BenchmarkPointLookup(b *testing.B) {
	be := benchFixture(b)
	args := lookupArgs()
	// A deadline as the engine's ceiling sets: pgx watches it on each call.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	for _, clients := range []int{1, 2, 8, 128} {
		for _, protocol := range []string{ProtocolExtended, ProtocolSimple} {
			for _, io := range []string{IOPoller, IOBlocking, IOAuto, IORaw} {
				b.Run(fmt.Sprintf("driver-%s-%s/clients=%d", protocol, io, clients), func(b *testing.B) {
					dbe := reopen(b, be, protocol, io)
					clientLoop(b, clients, func() (func(int) error, func()) {
						s, err := dbe.Session(ctx)
						if err != nil {
							b.Fatal(err)
						}
						st, err := s.Prepare(ctx, lookupSQL)
						if err != nil {
							b.Fatal(err)
						}
						return func(i int) error {
							n, err := st.Query(ctx, args[i%lookupKeys], nil)
							if err == nil && n != 1 {
								err = fmt.Errorf("lookup %d: %d rows", i, n)
							}
							return err
						}, func() { s.Close() }
					})
				})
			}
			if clients > 8 {
				continue
			}
			mode := pgx.QueryExecModeCacheStatement
			if protocol == ProtocolSimple {
				mode = pgx.QueryExecModeSimpleProtocol
			}
			b.Run(fmt.Sprintf("pgx-%s/clients=%d", protocol, clients), func(b *testing.B) {
				clientLoop(b, clients, func() (func(int) error, func()) {
					cfg := be.connCfg.Copy()
					cfg.DefaultQueryExecMode = mode
					conn, err := pgx.ConnectConfig(ctx, cfg)
					if err != nil {
						b.Fatal(err)
					}
					return func(i int) error {
						a := args[i%lookupKeys]
						rows, err := conn.Query(ctx, lookupSQL, a[0], a[1])
						if err != nil {
							return err
						}
						n := 0
						for rows.Next() {
							n++
						}
						rows.Close()
						if err := rows.Err(); err != nil {
							return err
						}
						if n != 1 {
							return fmt.Errorf("lookup %d: %d rows", i, n)
						}
						return nil
					}, func() { closeQuietly(conn) }
				})
			})
		}
		if clients > 8 {
			continue
		}
		for _, mode := range []string{"prepared", "simple"} {
			b.Run(fmt.Sprintf("pgbench-%s/clients=%d", mode, clients), func(b *testing.B) {
				pgbench(b, be, mode, clients)
			})
		}
	}
}

// reopen opens the fixture database again with other options.
func reopen(b *testing.B, be *Backend, protocol, io string) *Backend {
	nb, err := New(Name).Open(context.Background(), drivers.Config{Scale: "bench", Options: map[string]string{
		"dsn": testDSN(b), "database": be.database, "protocol": protocol, "io": io}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nb.Close() })
	return nb.(*Backend)
}

var pgbenchTPS = map[string]float64{}

var tpsLine = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbench runs the same lookup with pgbench for reference; it ignores b.N
// and reports pgbench's own rate over a fixed duration.
func pgbench(b *testing.B, be *Backend, mode string, clients int) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		bin = "/usr/lib/postgresql/15/bin/pgbench"
		if _, err := os.Stat(bin); err != nil {
			b.Skip("pgbench not found")
		}
	}
	key := fmt.Sprint(mode, clients)
	if tps, ok := pgbenchTPS[key]; ok && b.N > 1 {
		// Called again with a larger b.N: pgbench already ran.
		b.ReportMetric(tps, "ops/s")
		b.ReportMetric(1e9/tps, "ns/op")
		return
	}
	script := filepath.Join(b.TempDir(), "lookup.sql")
	body := "\\set k random(0, " + strconv.Itoa(benchRows-1) + ")\n\\set a :k % 50\n" +
		"SELECT e, a, v, tx FROM datoms WHERE a = :a AND v = :k::text;\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg := be.connCfg
	kv := func(s string) string {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
	}
	conn := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", kv(cfg.Host), cfg.Port, kv(cfg.User), kv(be.database))
	threads := min(clients, 2)
	cmd := exec.Command(bin, "-n", "-M", mode, "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-T", "5", "-f", script, conn)
	if cfg.Password != "" {
		cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Password)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("pgbench: %v\n%s", err, redactString(string(out), be.secrets))
	}
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		b.Fatalf("no tps in pgbench output:\n%s", out)
	}
	tps, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil || tps <= 0 {
		b.Fatalf("pgbench tps %q: %v", m[1], err)
	}
	pgbenchTPS[key] = tps
	b.ReportMetric(tps, "ops/s")
	b.ReportMetric(1e9/tps, "ns/op")
}

// BenchmarkPointLookupInterleaved runs the variants at 1, 2 and 8 clients
// in turns of 1000 lookups each, in a rotating order, so load from
// elsewhere on the machine hits them all alike; one b.N is one turn of
// every variant. Each variant keeps its own sessions open throughout.
func BenchmarkPointLookupInterleaved(b *testing.B) {
	for _, clients := range []int{1, 2, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			interleaved(b, clients)
		})
	}
}

func interleaved(b *testing.B, clients int) {
	be := benchFixture(b)
	args := lookupArgs()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	type variant struct {
		name string
		ops  []func(i int) error // one per client
	}
	var vs []variant
	for _, protocol := range []string{ProtocolExtended, ProtocolSimple} {
		for _, io := range []string{IOPoller, IOBlocking, IOAuto, IORaw} {
			dbe := reopen(b, be, protocol, io)
			v := variant{name: "driver-" + protocol + "-" + io}
			for c := 0; c < clients; c++ {
				s, err := dbe.Session(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				st, err := s.Prepare(ctx, lookupSQL)
				if err != nil {
					b.Fatal(err)
				}
				v.ops = append(v.ops, func(i int) error {
					_, err := st.Query(ctx, args[i%lookupKeys], nil)
					return err
				})
			}
			vs = append(vs, v)
		}
		cfg := be.connCfg.Copy()
		if protocol == ProtocolSimple {
			cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		}
		v := variant{name: "pgx-" + protocol}
		for c := 0; c < clients; c++ {
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer closeQuietly(conn)
			v.ops = append(v.ops, func(i int) error {
				a := args[i%lookupKeys]
				rows, err := conn.Query(ctx, lookupSQL, a[0], a[1])
				if err != nil {
					return err
				}
				for rows.Next() {
				}
				rows.Close()
				return rows.Err()
			})
		}
		vs = append(vs, v)
	}
	const turn = 1000
	per := turn / clients
	wall := make([]time.Duration, len(vs))
	cpu := make([]time.Duration, len(vs))
	b.ResetTimer()
	for r := 0; r < b.N; r++ {
		for k := range vs {
			k = (k + r) % len(vs) // rotate the order
			v := vs[k]
			t0, c0 := time.Now(), cpuTime()
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for c, op := range v.ops {
				wg.Add(1)
				go func() {
					defer wg.Done()
					base := r*turn + c*per
					for i := base; i < base+per; i++ {
						if err := op(i); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			cpu[k] += cpuTime() - c0
			wall[k] += time.Since(t0)
			close(errs)
			for err := range errs {
				b.Fatalf("%s: %v", v.name, err)
			}
		}
	}
	for k, v := range vs {
		ops := float64(b.N * per * clients)
		b.ReportMetric(ops/wall[k].Seconds(), v.name+"-ops/s")
		b.ReportMetric(float64(cpu[k].Nanoseconds())/ops, v.name+"-cpu-ns/op")
	}
}
