package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BenchmarkClientModels measures the same points with goroutine clients
// and with worker processes (one per client, and 2 sharing the clients:
// MENTAT_SPEC_BENCH_MODELS, see benchModels), next to an A/A row that runs
// goroutines twice: q1 alone (parity_q1, testdata/parity.hcl) and the
// concurrency sweep's read mix, at 1, 8 and 32 clients, on SQLite and
// (with MENTAT_SPEC_PG_DSN) PostgreSQL. The rounds are paired and
// interleaved: each round runs every model back to back, in one order on
// odd rounds and the reverse on even ones, so that a drift of the
// machine's load falls on all. SQLite runs twice: as deployed (each
// process takes SQLite's file locks for every read, the connections of
// one process share them) and with immutable readers (no locks in either
// model), which isolates the client models from that cost of the
// database. It prints the BENCHMARKS.md table: medians over rounds of each
// model's p50 and throughput, the median of the per-round ratios model /
// goroutine, the clients' CPU per call (precision.csv's client_cpu_us:
// the engine process, or the sum of the workers), the workers' start-up
// (out of the timed window) and the load average. With PostgreSQL it then
// runs the native control: the same q1 through pgbench as one process of
// N threads and as N processes, which shows what N processes cost the
// operating system beyond N threads whatever the client.
//
//	MENTAT_SPEC_BENCH_ROUNDS=3 go test ./cmd/mentat-spec -run '^$' -bench ClientModels -benchtime 1x -timeout 30m
//
// MENTAT_SPEC_BENCH_BACKENDS (comma-separated: sqlite, sqlite-immutable,
// postgres) runs only those rows.
func BenchmarkClientModels(b *testing.B) {
	b.Setenv(asCLI, "1")
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("MENTAT_SPEC_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	backends := []benchBackend{{"sqlite", "sqlite", "SQLite", nil},
		{"sqlite-immutable", "sqlite", "SQLite, immutable readers", []string{"testdata/immutable_override.hcl"}}}
	if os.Getenv("MENTAT_SPEC_PG_DSN") != "" {
		backends = append(backends, benchBackend{"postgres", "postgres", "PostgreSQL", nil})
	}
	if only := os.Getenv("MENTAT_SPEC_BENCH_BACKENDS"); only != "" {
		backends = slices.DeleteFunc(backends, func(be benchBackend) bool { return !slices.Contains(strings.Split(only, ","), be.key) })
	}
	clients := []string{"1", "8", "32"}
	var table, native []string
	for _, be := range backends {
		for _, sc := range []string{"parity_q1", "concurrency_sweep"} {
			b.Run(be.key+"/"+sc, func(b *testing.B) { table = append(table, benchClientModels(b, be, sc, rounds, clients)...) })
		}
		if be.key == "postgres" {
			b.Run("pgbench", func(b *testing.B) { native = benchPgbenchProcesses(b, rounds, clients) })
		}
	}
	fmt.Fprintf(os.Stderr, "\n%d rounds, min_s = max_s = 3, one rep per round:\n\n"+
		"| backend, scenario | model | clients | p50 ms goroutine / model (ratio) | ops/s goroutine / model (ratio) | client CPU µs/call goroutine / model (ratio) | workers' start-up | load average |\n"+
		"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n%s\n", rounds, strings.Join(table, "\n"))
	if native != nil {
		fmt.Fprintf(os.Stderr, "\nThe same q1 through pgbench -M prepared, %d paired rounds of 3 s: one process (-c N -j N, threads) against N processes of -c 1:\n\n"+
			"| clients | tps one process / N processes (ratio) | client CPU µs/tx one process / N processes (ratio) | load average |\n"+
			"| ---: | ---: | ---: | ---: |\n%s\n", rounds, strings.Join(native, "\n"))
	}
}

var benchNames = map[string]string{"parity_q1": "q1", "concurrency_sweep": "mix"}

// benchBackend is a row group of the table: its key for
// MENTAT_SPEC_BENCH_BACKENDS, the spec's backend, its label and the files
// added to the spec for it.
type benchBackend struct {
	key, name, label string
	files            []string
}

// benchClientModels runs the rounds of one backend and scenario and
// returns its table rows.
func benchClientModels(b *testing.B, bb benchBackend, scenario string, rounds int, clients []string) []string {
	be := bb.name
	data := b.TempDir()
	apply := func(model, clientList, minS string) string {
		out := filepath.Join(b.TempDir(), "out")
		args := append([]string{"apply", fullSpec, "testdata/parity.hcl"}, bb.files...)
		args = append(args, "-var", `scales=["xs"]`, "-var", `backends=["`+be+`"]`,
			"-var", `scenarios=["`+scenario+`"]`, "-var", "clients="+clientList, "-var", "client_model="+model,
			"-var", "data_dir="+data, "-var", "min_s="+minS, "-var", "max_s="+minS, "-var", "reps=1", "-o", out, "-q")
		if code := run(args, devNull{}, os.Stderr); code != exitOK {
			b.Fatalf("%s %s %s: exit %d", be, scenario, model, code)
		}
		return out
	}
	// Load the store first, so that no round's first point follows a load.
	apply("goroutine", "[1]", "0.2")
	type key struct{ model, clients string }
	p50s, tputs, cpus := map[key][]float64{}, map[key][]float64{}, map[key][]float64{}
	startup := map[key][]float64{} // by model and number of workers
	var loads []float64
	others := benchModels()
	for r := 0; r < rounds; r++ {
		models := append([]string{"goroutine"}, others...)
		if r%2 == 1 {
			slices.Reverse(models)
		}
		for _, model := range models {
			loads = append(loads, loadAverage())
			out := apply(clientModel(model), "["+strings.Join(clients, ",")+"]", "3")
			for _, row := range readCSV(b, filepath.Join(out, "timings.csv")) {
				k := key{model, row["clients"]}
				p50, _ := strconv.ParseFloat(row["p50_ms"], 64)
				tp, _ := strconv.ParseFloat(row["throughput_ops_s"], 64)
				p50s[k] = append(p50s[k], p50)
				tputs[k] = append(tputs[k], tp)
			}
			for _, row := range readCSV(b, filepath.Join(out, "precision.csv")) {
				k := key{model, row["clients"]}
				cpu, _ := strconv.ParseFloat(row["client_cpu_us"], 64)
				cpus[k] = append(cpus[k], cpu)
			}
			if clientModel(model) != "goroutine" {
				log, _ := os.ReadFile(filepath.Join(out, "logs", "workers.log"))
				for _, m := range regexp.MustCompile(`workers=(\d+) startup_ms=([0-9.]+)`).FindAllStringSubmatch(string(log), -1) {
					v, _ := strconv.ParseFloat(m[2], 64)
					startup[key{model, m[1]}] = append(startup[key{model, m[1]}], v)
				}
			}
		}
	}
	loads = append(loads, loadAverage())
	sort.Float64s(loads)
	var rows []string
	for _, model := range others {
		for _, c := range clients {
			g, p := key{"goroutine", c}, key{model, c}
			workers := c // a worker per client, at most the model's N
			if n, err := strconv.Atoi(model); err == nil {
				cn, _ := strconv.Atoi(c)
				workers = strconv.Itoa(min(n, cn))
			}
			p50Ratio, tpRatio, cpuRatio := ratios(p50s[p], p50s[g]), ratios(tputs[p], tputs[g]), ratios(cpus[p], cpus[g])
			rows = append(rows, fmt.Sprintf("| %s, %s | %s | %s | %s / %s (%.2f) | %s / %s (%.2f) | %.1f / %.1f (%.2f) | %.2f s | %.0f-%.0f |",
				bb.label, benchNames[scenario], modelLabel(model), c, ms3(median(p50s[g])), ms3(median(p50s[p])), median(p50Ratio),
				ops(median(tputs[g])), ops(median(tputs[p])), median(tpRatio),
				median(cpus[g]), median(cpus[p]), median(cpuRatio), median(startup[key{model, workers}])/1000, loads[0], loads[len(loads)-1]))
			suffix := "-c" + c
			switch {
			case model == "aa":
				suffix = "-aa" + suffix
			case model != "process":
				suffix = "-p" + model + suffix
			}
			b.ReportMetric(median(cpuRatio), "cpu-ratio"+suffix)
			b.ReportMetric(median(p50Ratio), "p50-ratio"+suffix)
			b.ReportMetric(median(tpRatio), "tput-ratio"+suffix)
			b.ReportMetric(median(startup[key{model, workers}]), "startup-ms"+suffix)
		}
	}
	return rows
}

// benchModels are the client models measured against goroutines:
// MENTAT_SPEC_BENCH_MODELS, comma-separated: "process", a number N of
// worker processes sharing the clients, or "aa", goroutines again (an
// A/A row: how far two runs of the same model differ, the noise the
// other rows are read against). By default the A/A row, one process per
// client and 2 processes (as pgbench -j 2 on two cores).
func benchModels() []string {
	if v := os.Getenv("MENTAT_SPEC_BENCH_MODELS"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"aa", "process", "2"}
}

// clientModel is the client_model a benchmark model runs with.
func clientModel(model string) string {
	if model == "aa" {
		return "goroutine"
	}
	return model
}

// modelLabel names a model in the table.
func modelLabel(model string) string {
	switch {
	case model == "aa":
		return "goroutines again (A/A)"
	case model == "process":
		return "one process per client"
	}
	return "processes = " + model
}

// loadAverage is the one-minute load average, or 0 where unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// ms3 prints milliseconds with three significant digits.
func ms3(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// ops prints a throughput as BENCHMARKS.md does: 540, 7.3K.
func ops(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "K"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

func ratios(a, b []float64) []float64 {
	var out []float64
	for i := range min(len(a), len(b)) {
		if b[i] > 0 {
			out = append(out, a[i]/b[i])
		}
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// benchPgbenchProcesses is the native control of the PostgreSQL rows:
// pgbench running the same q1 on the database the rows ran on, with its
// clients as threads of one process (-c N -j N) and as N processes of one
// client each, in paired rounds. What N processes cost beyond N threads
// here is the operating system's, whatever the client.
func benchPgbenchProcesses(b *testing.B, rounds int, clients []string) []string {
	pgbench := os.Getenv("PGBENCH")
	if pgbench == "" {
		pgbench = "/usr/lib/postgresql/15/bin/pgbench"
	}
	if _, err := os.Stat(pgbench); err != nil {
		b.Skipf("no pgbench at %s (set PGBENCH)", pgbench)
	}
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	u, err := url.Parse(dsn)
	if err != nil {
		b.Fatalf("MENTAT_SPEC_PG_DSN: %v", err)
	}
	u.Path = "/mentat_xs" // specs/full.hcl's database at scale xs, loaded by the rows above
	db := u.String()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	var users int64
	err = conn.QueryRow(ctx, "SELECT count(*) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'user/email')").Scan(&users)
	conn.Close(ctx)
	if err != nil || users == 0 {
		b.Fatalf("users in mentat_xs: %d, %v", users, err)
	}
	q1, err := os.ReadFile("../../specs/mentat/sql/q1.sql")
	if err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(b.TempDir(), "q1.pgbench")
	text := fmt.Sprintf("\\set uid random(0, %d)\n%s;\n", users-1, strings.Replace(string(q1), ":email", "('user' || :uid || '@example.com')", 1))
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	// run starts procs pgbench processes of n/procs clients each and
	// returns their transactions per second and CPU per transaction.
	run := func(n, procs int) (tps, cpuUs float64) {
		cmds := make([]*exec.Cmd, procs)
		outs := make([]*strings.Builder, procs)
		for i := range cmds {
			c := strconv.Itoa(n / procs)
			outs[i] = &strings.Builder{}
			cmds[i] = exec.Command(pgbench, "-n", "-M", "prepared", "-c", c, "-j", c, "-T", "3", "-f", script, db)
			cmds[i].Stdout = outs[i]
			if err := cmds[i].Start(); err != nil {
				b.Fatal(err)
			}
		}
		var txs int64
		var cpu time.Duration
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				b.Fatalf("pgbench: %v\n%s", err, outs[i])
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			m := regexp.MustCompile(`actually processed: (\d+)`).FindStringSubmatch(outs[i].String())
			if m == nil {
				b.Fatalf("pgbench printed no count:\n%s", outs[i])
			}
			v, _ := strconv.ParseInt(m[1], 10, 64)
			txs += v
		}
		if txs == 0 {
			b.Fatal("pgbench made no transaction")
		}
		return float64(txs) / 3, float64(cpu) / float64(time.Microsecond) / float64(txs)
	}
	var rows []string
	for _, c := range clients {
		n, _ := strconv.Atoi(c)
		var one, many, oneCPU, manyCPU, loads []float64
		for r := 0; r < rounds; r++ {
			loads = append(loads, loadAverage())
			order := []bool{true, false} // one process first
			if r%2 == 1 {
				order = []bool{false, true}
			}
			for _, threads := range order {
				if threads {
					tps, cpu := run(n, 1)
					one, oneCPU = append(one, tps), append(oneCPU, cpu)
				} else {
					tps, cpu := run(n, n)
					many, manyCPU = append(many, tps), append(manyCPU, cpu)
				}
			}
		}
		sort.Float64s(loads)
		rows = append(rows, fmt.Sprintf("| %d | %s / %s (%.2f) | %.1f / %.1f (%.2f) | %.0f-%.0f |", n,
			ops(median(one)), ops(median(many)), median(ratios(many, one)),
			median(oneCPU), median(manyCPU), median(ratios(manyCPU, oneCPU)), loads[0], loads[len(loads)-1]))
		b.ReportMetric(median(ratios(manyCPU, oneCPU)), "pgbench-cpu-ratio-c"+c)
	}
	return rows
}
