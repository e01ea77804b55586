package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// The test binary is also the CLI when this variable is set, so that
// apply's worker processes (os.Executable() worker) run this package's
// code.
const asCLI = "MENTAT_SPEC_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const fullSpec = "../../specs/full.hcl"

// workerChildren lists the pids of this process's children that run the
// worker command.
func workerChildren(t *testing.T) []int {
	t.Helper()
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "worker" {
			out = append(out, pid)
		}
	}
	return out
}

// applyWatched runs mentat-spec with args while watching the worker
// children, fails the test unless it exits 0, and returns its output and
// the most workers seen at once.
func applyWatched(t *testing.T, args ...string) (stdout, stderr string, most int) {
	t.Helper()
	stop := make(chan struct{})
	seen := watchWorkers(t, stop, nil)
	code, stdout, stderr := runT(t, args...)
	close(stop)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	return stdout, stderr, <-seen
}

// watchWorkers samples the worker children until stop is closed and
// returns the most seen at once.
func watchWorkers(t *testing.T, stop <-chan struct{}, seen func([]int)) <-chan int {
	most := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				most <- n
				return
			case <-time.After(5 * time.Millisecond):
			}
			pids := workerChildren(t)
			n = max(n, len(pids))
			if seen != nil {
				seen(pids)
			}
		}
	}()
	return most
}

// killWorkerOnce watches this process's worker children while apply
// runs into dir/out: once n of them run and workers.log holds pool (the
// pool of the point to hit is up), it waits delay (into the measured
// window) and kills the pick-th of them with SIGKILL. done ends the watch
// and returns the killed pid (0: none was killed).
func killWorkerOnce(t *testing.T, dir string, n int, pool string, delay time.Duration, pick int) (done func() int) {
	t.Helper()
	stop := make(chan struct{})
	var once sync.Once
	var victim int
	workersLog := filepath.Join(dir, "out", "logs", "workers.log")
	most := watchWorkers(t, stop, func(pids []int) {
		if len(pids) < n {
			return
		}
		if b, _ := os.ReadFile(workersLog); !strings.Contains(string(b), pool) {
			return
		}
		once.Do(func() {
			time.Sleep(delay)
			victim = pids[pick]
			if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
				t.Errorf("kill %d: %v", victim, err)
			}
		})
	})
	return func() int {
		close(stop)
		<-most // the watcher has returned: victim is settled
		return victim
	}
}

func readCSV(t testing.TB, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func sweepArgs(dir, backend, clients string, extra ...string) []string {
	args := []string{"apply", fullSpec, "-var", `scales=["xs"]`, "-var", `backends=["` + backend + `"]`,
		"-var", `scenarios=["concurrency_sweep"]`, "-var", "clients=" + clients, "-var", `client_model="process"`,
		"-var", "data_dir=" + filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"), "-q"}
	return append(args, extra...)
}

// The done-when run, with short sampling: one worker process per
// client, every check PASS, and the workers visible while it ran.
func TestApplyProcessModel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	for _, tc := range []struct {
		name, backend string
		extra         []string
	}{
		{"stdio", "sqlite", nil},
		{"tcp", "sqlite", []string{"-worker-tcp"}},
		// DuckDB takes one writing process: the run releases the file and
		// the readers open it read-only.
		{"duckdb readers", "duckdb-readers", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(sweepArgs(dir, tc.backend, "[1,4]", tc.extra...), "-var", "min_s=0.5", "-var", "max_s=1", "-var", "reps=2")
			stdout, _, n := applyWatched(t, args...)
			if n < 4 {
				t.Errorf("at most %d worker processes seen at once, want 4 at the 4-client point", n)
			}
			if !strings.Contains(stdout, "0 FAIL") {
				t.Errorf("checks: %s", stdout)
			}
			rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
			if len(rows) != 2 {
				t.Fatalf("timings.csv has %d rows, want the 1- and 4-client points", len(rows))
			}
			for i, want := range []string{"1", "4"} {
				r := rows[i]
				if r["clients"] != want || r["errors"] != "0" || r["count"] == "0" || r["reps"] != "2" {
					t.Errorf("row %d: %v", i, r)
				}
			}
			log, err := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
			if err != nil || !strings.Contains(string(log), "point=1 workers=4") {
				t.Errorf("workers.log: %s %v", log, err)
			}
			if left := workerChildren(t); len(left) > 0 {
				t.Errorf("workers still running after apply: %v", left)
			}
		})
	}
}

// client_model as a number: that many worker processes share the
// clients (processes = N, as pgbench -j N). specs/full.hcl: four clients
// on two workers; the quickstart: write_mixed's two readers on two
// workers. Two processes at most, both seen, every check PASS, no error.
func TestApplyClientModelProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	for _, tc := range []struct {
		name, spec string
		vars       []string
		rows       int
	}{
		{"full", fullSpec, []string{`scenarios=["concurrency_sweep"]`, "clients=[1,4]", "min_s=0.5", "max_s=1", "reps=1"}, 2},
		{"quickstart", "../../examples/quickstart.hcl", []string{`scenarios=["point_lookup","write_mixed"]`, "mixed_s=1"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"apply", tc.spec, "-var", `scales=["xs"]`, "-var", `backends=["sqlite"]`, "-var", "client_model=2",
				"-var", "data_dir=" + filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"), "-q"}
			for _, v := range tc.vars {
				args = append(args, "-var", v)
			}
			stdout, _, n := applyWatched(t, args...)
			if n != 2 {
				t.Errorf("at most %d worker processes seen at once, want 2 (client_model=2)", n)
			}
			if !strings.Contains(stdout, "0 FAIL") {
				t.Errorf("checks: %s", stdout)
			}
			rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
			if len(rows) != tc.rows {
				t.Fatalf("timings.csv has %d rows, want %d: %v", len(rows), tc.rows, rows)
			}
			for i, r := range rows {
				if r["errors"] != "0" || r["count"] == "0" {
					t.Errorf("row %d: %v", i, r)
				}
			}
			log, err := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
			if err != nil || !strings.Contains(string(log), "workers=2") {
				t.Errorf("workers.log: %v\n%s", err, log)
			}
		})
	}
}

// A worker killed mid-point: that point's row carries the error, the next
// point still runs, and the rows written before stay.
func TestApplyWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	// The pool of the 4-client point is up once workers.log says so; then
	// rep 1 measures for 4 s.
	watch := killWorkerOnce(t, dir, 4, "point=0 workers=4", 1500*time.Millisecond, 2)
	args := append(sweepArgs(dir, "sqlite", "[4,2]"), "-var", "min_s=4", "-var", "max_s=4", "-var", "reps=2")
	code, stdout, stderr := runT(t, args...)
	victim := watch()
	if victim == 0 {
		t.Fatalf("no worker was killed\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if code != exitUnfinished || !strings.Contains(stderr, "killed") {
		t.Errorf("exit %d, want %d with the killed worker reported\nstderr:\n%s", code, exitUnfinished, stderr)
	}
	raw := readCSV(t, filepath.Join(dir, "out", "raw.csv"))
	timings := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(raw) != 3 || len(timings) != 2 {
		t.Fatalf("raw.csv %d rows (want rep 1 of the 4-client point and both reps of the 2-client one), timings.csv %d rows (want 2)", len(raw), len(timings))
	}
	killed, next := timings[0], timings[1]
	if killed["clients"] != "4" || killed["errors"] == "0" || killed["count"] == "0" {
		t.Errorf("the killed point's row must carry the error next to the other workers' calls: %v", killed)
	}
	if next["clients"] != "2" || next["errors"] != "0" || next["count"] == "0" || next["reps"] != "2" {
		t.Errorf("the point after the kill: %v", next)
	}
	errLog, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "errors.log"))
	if !strings.Contains(string(errLog), "pid "+strconv.Itoa(victim)) || !strings.Contains(string(errLog), "killed") {
		t.Errorf("errors.log does not say which worker died and how:\n%s", errLog)
	}
}

// Workers started apart from the run, as on other machines: they dial
// the run's address, serve one point per connection, and exit 0 when the
// run stops listening.
func TestApplyRemoteWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	// The run's secret, for apply (in this process) and its workers.
	t.Setenv(worker.EnvSecret, "remote-workers-test-secret-0123456789")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var cmds []*exec.Cmd
	started := map[string]bool{}
	for i := 0; i < 4; i++ {
		cmd := exec.Command(os.Args[0], "worker", "-connect", addr, "-loop", "-wait", "30s")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		cmds = append(cmds, cmd)
		started[strconv.Itoa(cmd.Process.Pid)] = true
	}
	dir := t.TempDir()
	args := append(sweepArgs(dir, "sqlite", "[1,4]", "-worker-listen", addr), "-var", "min_s=0.5", "-var", "max_s=1", "-var", "reps=1")
	code, stdout, stderr := runT(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, cmd := range cmds {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("worker %d: %v", cmd.Process.Pid, err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("worker %d still running after the run ended", cmd.Process.Pid)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 2 || rows[1]["clients"] != "4" || rows[1]["errors"] != "0" || rows[1]["count"] == "0" {
		t.Fatalf("timings.csv: %v", rows)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
	pids := regexp.MustCompile(`point=1 workers=4 .* pids=([0-9,]+)`).FindStringSubmatch(string(log))
	if pids == nil {
		t.Fatalf("workers.log:\n%s", log)
	}
	for _, pid := range strings.Split(pids[1], ",") {
		if !started[pid] {
			t.Errorf("pid %s measured the 4-client point, but is not one of the workers the test started", pid)
		}
	}
}

// write_mixed on a process backend: the readers run in worker processes
// and the writer in the coordinator, in one window, as the seed suite ran one
// writer next to reader processes; a verifier next to the writer checks
// reads during the writes, and the checks after the writes see what the
// writer committed. DuckDB takes one writing process: there every client
// stays in the coordinator and the readers' own reads are checked.
func TestApplyWriteMixedReaderProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	for _, tc := range []struct {
		backend     string
		workers     int    // reader processes seen at once
		concurrent  string // the concurrent_reads check's status
		readersHere bool
	}{
		{"sqlite-ext", 3, "PASS", false},
		{"duckdb-readers", 0, "PASS", true},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, n := applyWatched(t, "apply", fullSpec, "-var", `scales=["xs"]`, "-var", `backends=["`+tc.backend+`"]`,
				"-var", `scenarios=["write_mixed"]`, "-var", "mixed_s=1", "-var", "mixed_readers=3",
				"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
			if n != tc.workers {
				t.Errorf("at most %d worker processes seen at once, want %d", n, tc.workers)
			}
			rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
			ops := map[string]map[string]string{}
			for _, r := range rows {
				if r["scenario"] == "write_mixed" {
					ops[r["op"]] = r
				}
			}
			w, r := ops["write"], ops["read"]
			if w == nil || r == nil || w["count"] == "0" || r["count"] == "0" || w["errors"] != "0" || r["errors"] != "0" || r["clients"] != "3" {
				t.Fatalf("write_mixed rows: write %v, read %v", w, r)
			}
			checks, err := os.ReadFile(filepath.Join(dir, "out", "checks.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var concurrent string
			passAfter := 0
			for _, l := range strings.Split(string(checks), "\n") {
				f := strings.Fields(l)
				switch {
				case len(f) > 4 && f[4] == "concurrent_reads:":
					concurrent = f[0]
					if byVerifier := strings.Contains(l, "by a verifier in the writer's process"); byVerifier == tc.readersHere {
						t.Errorf("concurrent_reads (readers in this process: %v): %s", tc.readersHere, l)
					}
				case len(f) > 4 && f[0] == "PASS" && f[1] == "write_mixed":
					passAfter++
				case len(f) > 0 && f[0] == "FAIL":
					t.Errorf("check failed: %s", l)
				}
			}
			if concurrent != tc.concurrent || passAfter == 0 {
				t.Errorf("concurrent_reads %q (want %s), %d checks after the writes passed:\n%s", concurrent, tc.concurrent, passAfter, checks)
			}
			log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "workers.log"))
			inLog := strings.Contains(string(log), "write_mixed "+tc.backend+" xs point=0 workers=3")
			if inLog == tc.readersHere {
				t.Errorf("workers.log (readers in this process: %v):\n%s", tc.readersHere, log)
			}
			if tc.readersHere && !strings.Contains(stdout+stderr, "readers run in this process") {
				t.Errorf("no word that the readers stay in this process:\n%s%s", stdout, stderr)
			}
		})
	}
}

// A reader process of write_mixed killed during the writes: the read row
// carries the error next to the other readers' calls, the writer stops
// with the workers and its writes are recorded, so the checks after the
// writes still compare with what committed.
func TestApplyWriteMixedReaderKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	// 1.5 s into the window of 4 s.
	watch := killWorkerOnce(t, dir, 3, "write_mixed sqlite-ext xs point=0 workers=3", 1500*time.Millisecond, 1)
	code, stdout, stderr := runT(t, "apply", fullSpec, "-var", `scales=["xs"]`, "-var", `backends=["sqlite-ext"]`,
		"-var", `scenarios=["write_mixed"]`, "-var", "mixed_s=4", "-var", "mixed_readers=3",
		"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
	victim := watch()
	if victim == 0 {
		t.Fatalf("no worker was killed\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if code != exitUnfinished || !strings.Contains(stdout+stderr, "killed") {
		t.Errorf("exit %d, want %d with the killed worker reported\nstdout:\n%s\nstderr:\n%s", code, exitUnfinished, stdout, stderr)
	}
	ops := map[string]map[string]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "out", "timings.csv")) {
		ops[r["op"]] = r
	}
	w, r := ops["write"], ops["read"]
	if w == nil || w["count"] == "0" || w["errors"] != "0" {
		t.Errorf("the writer's row: %v", w)
	}
	if r == nil || r["count"] == "0" || r["errors"] == "0" {
		t.Errorf("the readers' row must carry the error next to the other readers' calls: %v", r)
	}
	if !strings.Contains(stdout, "write(s) of state_change committed") || !strings.Contains(stdout, "PASS xs/sqlite-ext write_mixed point_lookup") {
		t.Errorf("the writes were not recorded or not checked after the kill:\n%s", stdout)
	}
}

// The verifier next to the writer can fail: a write split in two
// transactions (the log first, the current state later) exposes a state
// that never existed to reads in between, and with the readers in worker
// processes the verifier of the writer's process reports it, naming the
// write, and apply fails.
func TestApplyWriteMixedVerifierCatchesASplitWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	split, err := filepath.Abs("../../engine/runner/testdata/writes/write_state_split.sql")
	if err != nil {
		t.Fatal(err)
	}
	override := filepath.Join(dir, "split_override.hcl")
	text := fmt.Sprintf("query \"write_state\" {\n  sql = file(%q)\n}\n", filepath.ToSlash(split))
	if err := os.WriteFile(override, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runT(t, "apply", fullSpec, override, "-var", `scales=["xs"]`, "-var", `backends=["sqlite-ext"]`,
		"-var", `scenarios=["write_mixed"]`, "-var", "mixed_s=2", "-var", "mixed_readers=2",
		"-var", "data_dir="+filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"))
	var line string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "concurrent_reads:") {
			line = l
		}
	}
	if code != exitCheck || !strings.HasPrefix(line, "FAIL") || !strings.Contains(line, "never existed") || !strings.Contains(line, "contradicts write") {
		t.Errorf("exit %d, concurrent_reads %q\nstdout:\n%s\nstderr:\n%s", code, line, stdout, stderr)
	}
}

// A query that turns stuck inside worker processes, whose raw PostgreSQL
// sessions hold every P there is (no spare one in a worker): each stuck
// call is cut at the 0.3 s ceiling and the same session goes on, so every
// client is cut again and again within the 2 s window (at least twice
// each, which a session taking 1 s past the ceiling to come back would
// not reach), the point's row carries the cuts and nothing is left
// running on the server.
func TestApplyWorkerCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	t.Setenv(asCLI, "1")
	dir := t.TempDir()
	db := fmt.Sprintf("mentat_wceil_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() { dropDatabase(t, dsn, db) })
	const clients, fastCalls = 2, 20
	start := time.Now()
	stdout, _, n := applyWatched(t, "apply", "testdata/worker_ceiling.hcl", "-var", "database="+db,
		"-var", "fast_calls="+strconv.Itoa(fastCalls), "-var", "data_dir="+filepath.Join(dir, "data"),
		"-o", filepath.Join(dir, "out"), "-q")
	took := time.Since(start)
	if n != clients {
		t.Errorf("at most %d worker processes seen at once, want %d", n, clients)
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 1 {
		t.Fatalf("timings.csv: %v", rows)
	}
	r := rows[0]
	count, _ := strconv.Atoi(r["count"])
	cuts, _ := strconv.Atoi(r["errors"])
	// The probe's call and each client's warm-up call come first.
	if count != fastCalls-1-clients {
		t.Errorf("%d measured calls returned, want the %d fast ones after the probe and warm-up: %v", count, fastCalls-1-clients, r)
	}
	if cuts < 2*clients {
		t.Errorf("%d calls cut at the ceiling in the 2 s window, want at least %d (%d clients cut and reused within 1 s, twice each): %v\n%s", cuts, 2*clients, clients, r, stdout)
	}
	log, err := os.ReadFile(filepath.Join(dir, "out", "logs", "errors.log"))
	if want := fmt.Sprintf("errors=%d timeouts=%d first: call exceeded the probe ceiling of 300ms", cuts, cuts); err != nil || !strings.Contains(string(log), want) {
		t.Errorf("errors.log: want %q\n%s %v", want, log, err)
	}
	t.Logf("%d calls cut at the ceiling by 2 workers in a 2 s window; apply took %v", cuts, took.Round(time.Millisecond))
	if left := stuckQueries(t, dsn, db); left != 0 {
		t.Errorf("%d stuck queries still running on the server after apply", left)
	}
}

// stuckQueries counts the queries still sleeping in database db.
func stuckQueries(t *testing.T, dsn, db string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE '%pg_sleep%'", db).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
