package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// safeOverride keeps the quickstart short and on a database of this
// test's own: a write scenario and reads whose checks a second run
// writing the same store would break.
const safeOverride = `
sampling {
  warmup  = 1
  min_s   = 0.2
  min_n   = 5
  max_s   = 0.4
  reps    = 1
}

backend "postgres" {
  database = "%s_${scale.name}"
}

matrix {
  scenarios = ["point_lookup", "write_mixed"]
}
`

// safeRun is the command line of one quickstart run on dir's data.
func safeRun(t *testing.T, dir, backend, out string, extra ...string) []string {
	t.Helper()
	override := filepath.Join(dir, "safe_override.hcl")
	if _, err := os.Stat(override); err != nil {
		db := fmt.Sprintf("mentat_safe_%d", os.Getpid())
		if err := os.WriteFile(override, []byte(fmt.Sprintf(safeOverride, db)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"apply", quickstart, override, "-var", `backends=["` + backend + `"]`, "-var", "mixed_s=0.5",
		"-var", "data_dir=" + filepath.Join(dir, "data"), "-data", filepath.Join(dir, "data"), "-o", filepath.Join(dir, out)}
	return append(args, extra...)
}

func safeBackends(t *testing.T) []string {
	out := []string{"sqlite", "duckdb"}
	if dsn := os.Getenv("MENTAT_SPEC_PG_DSN"); dsn != "" {
		db := fmt.Sprintf("mentat_safe_%d_xs", os.Getpid())
		t.Cleanup(func() { dropDatabase(t, dsn, db) })
		out = append(out, "postgres")
	} else {
		t.Log("MENTAT_SPEC_PG_DSN is unset: postgres is not tried")
	}
	return out
}

// noFail fails the test when a run reported a wrong answer.
func noFail(t *testing.T, name string, code int, out string) {
	t.Helper()
	if code != exitOK || strings.Contains(out, "FAIL ") || !strings.Contains(out, " 0 FAIL") {
		t.Errorf("%s: exit %d\n%s", name, code, out)
	}
}

// Two applies started at once on one store: the second waits for the
// first (naming it), then runs; neither reports a wrong answer. With
// -lock-wait 0 the second refuses at once, naming the holder.
func TestApplyOneRunPerStore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply several times")
	}
	host, _ := os.Hostname()
	for _, backend := range safeBackends(t) {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			var wg sync.WaitGroup
			codes, outs, pids := make([]int, 2), make([]string, 2), make([]int, 2)
			for i := range 2 {
				cmd, wait := startCLI(t, nil, safeRun(t, dir, backend, fmt.Sprintf("out%d", i)), nil)
				pids[i] = cmd.Process.Pid
				wg.Add(1)
				go func() { defer wg.Done(); codes[i], outs[i] = wait() }()
			}
			wg.Wait()
			waited := -1
			for i := range 2 {
				noFail(t, fmt.Sprintf("run %d", i), codes[i], outs[i])
				if strings.Contains(outs[i], "waiting for ") {
					waited = i
				}
			}
			if waited < 0 {
				t.Fatalf("neither run waited for the other:\n%s\n%s", outs[0], outs[1])
			}
			holder := fmt.Sprintf("in use by pid %d on %s", pids[1-waited], host)
			if !strings.Contains(outs[waited], holder) {
				t.Errorf("the waiting run does not say %q:\n%s", holder, outs[waited])
			}

			// -lock-wait 0: refused at once while the first run holds the store.
			first, waitFirst := startCLI(t, nil, safeRun(t, dir, backend, "out2", "-reload"), nil)
			var code int
			var out string
			deadline := time.Now().Add(20 * time.Second)
			for {
				code, out = runCLI(t, safeRun(t, dir, backend, "out3", "-lock-wait", "0"))
				if code != exitOK || time.Now().After(deadline) {
					break
				}
				// The first run had not taken its store yet, or was done.
			}
			c1, o1 := waitFirst()
			noFail(t, "the holder", c1, o1)
			want := fmt.Sprintf("in use by pid %d on %s", first.Process.Pid, host)
			if code != exitUnfinished || !strings.Contains(out, want) || !strings.Contains(out, "refusing to share it") {
				t.Errorf("-lock-wait 0: exit %d, want 7 (could not finish) and %q:\n%s", code, want, out)
			}
		})
	}
}

// runCLI runs the CLI as a child and returns its exit code and output.
func runCLI(t *testing.T, args []string) (int, string) {
	t.Helper()
	_, wait := startCLI(t, nil, args, nil)
	return wait()
}

// A run killed with SIGKILL while it loads leaves its lock behind: the
// next run takes it over at once (-lock-wait 0 would refuse a live
// holder) and answers right.
func TestApplyTakesOverAKilledRunsLock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	for _, backend := range safeBackends(t) {
		if backend == "duckdb" {
			continue // the same file lock as sqlite
		}
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			var once sync.Once
			victim, wait := startCLI(t, nil, safeRun(t, dir, backend, "out0"), func(cmd *exec.Cmd, line string) {
				if strings.Contains(line, ": loading ") {
					once.Do(func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
				}
			})
			if code, out := wait(); code != -1 {
				t.Fatalf("the run was not killed while loading: exit %d\n%s", code, out)
			}
			if backend == "sqlite" {
				lock := filepath.Join(dir, "data", "quickstart-xs.sqlite.lock")
				b, err := os.ReadFile(lock)
				if err != nil || !strings.Contains(string(b), "pid="+strconv.Itoa(victim.Process.Pid)) {
					t.Fatalf("the killed run's lock file: %q %v", b, err)
				}
			}
			// PostgreSQL ends the killed run's session (and its lock) once it
			// sees the connection closed: give it a second.
			wait2 := "0"
			if backend == "postgres" {
				wait2 = "5s"
			}
			t0 := time.Now()
			code, out := runCLI(t, safeRun(t, dir, backend, "out1", "-lock-wait", wait2))
			noFail(t, "after the kill", code, out)
			if strings.Contains(out, "waiting for") && time.Since(t0) > 10*time.Second {
				t.Errorf("waited %s for a dead run", time.Since(t0))
			}
		})
	}
}

// One results directory, one run: a second on the same -o refuses with
// -lock-wait 0.
func TestApplyOneRunPerResultsDir(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dir := t.TempDir()
	first, wait := startCLI(t, nil, safeRun(t, dir, "sqlite", "out"), nil)
	var code int
	var out string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		// Its own data directory: only the results directory is shared.
		args := safeRun(t, dir, "sqlite", "out", "-lock-wait", "0")
		args = append(args, "-data", filepath.Join(dir, "other"), "-var", "data_dir="+filepath.Join(dir, "other"))
		if code, out = runCLI(t, args); code != exitOK {
			break
		}
	}
	c, o := wait()
	noFail(t, "the holder", c, o)
	if code != exitUnfinished || !strings.Contains(out, "results directory") || !strings.Contains(out, fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Errorf("second run on the results directory: exit %d\n%s", code, out)
	}
}

// The done-when: a raw TCP client that connects to
// -worker-listen and sends hello gets no assignment and no byte of a
// sensitive variable; a worker with a wrong secret is refused and
// counted; the run's workers (secret and pg_dsn from their environment)
// serve every point.
func TestApplyWorkerAuthentication(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	t.Setenv(asCLI, "1")
	secret := "0123456789abcdef0123456789abcdef"
	t.Setenv(worker.EnvSecret, secret)
	const dsn = "postgres://bench:hunter2-on-the-wire@127.0.0.1:9/none"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	args := append(sweepArgs(dir, "sqlite", "[1,2]", "-worker-listen", addr), "-var", "min_s=0.3", "-var", "max_s=0.6", "-var", "reps=1", "-var", "pg_dsn="+dsn)
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runT(t, args...)
		done <- result{code, stdout, stderr}
	}()

	// A raw TCP client, as in the issue.
	var nc net.Conn
	for deadline := time.Now().Add(20 * time.Second); ; {
		if nc, err = net.DialTimeout("tcp", addr, time.Second); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(nc, "{\"type\":\"hello\",\"version\":%d,\"pid\":1}\n", worker.Version)
	got, _ := io.ReadAll(io.LimitReader(nc, 1<<20))
	nc.Close()
	for _, bad := range []string{"assign", "hunter2", "pg_dsn", "full.hcl"} {
		if strings.Contains(string(got), bad) {
			t.Errorf("a raw TCP client received %q: %q", bad, got)
		}
	}

	// A worker with another secret: refused, exits 1.
	stranger := exec.Command(os.Args[0], "worker", "-connect", addr)
	stranger.Env = append(os.Environ(), worker.EnvSecret+"=another-secret-of-32-bytes-00000", config.EnvVarPrefix+"pg_dsn="+dsn)
	if out, err := stranger.CombinedOutput(); err == nil || !strings.Contains(string(out), "did not prove") {
		t.Errorf("a worker with another secret: %v\n%s", err, out)
	}

	// The same with -loop: it gives up after a few refusals, pausing
	// between them (it used to dial again at once, forever).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	looper := exec.CommandContext(ctx, os.Args[0], "worker", "-connect", addr, "-loop", "-wait", "20s")
	looper.Env = stranger.Env
	out, err := looper.CombinedOutput()
	if code := looper.ProcessState.ExitCode(); code != exitUnfinished || !strings.Contains(string(out), "after 5 refusals in a row") ||
		strings.Count(string(out), "dialling again in") != 4 {
		t.Errorf("a looping worker with another secret: exit %d (%v)\n%s", code, err, out)
	}

	// The run's workers.
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "worker", "-connect", addr, "-loop", "-wait", "20s")
		cmd.Env = append(os.Environ(), config.EnvVarPrefix+"pg_dsn="+dsn)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		cmds = append(cmds, cmd)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("apply did not end")
	}
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v", cmd.Process.Pid, err)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 2 || rows[1]["clients"] != "2" || rows[1]["errors"] != "0" || rows[1]["count"] == "0" {
		t.Fatalf("timings.csv: %v", rows)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "out", "logs", "auth.log"))
	// Seven refusals from 127.0.0.1: five lines, then one summary.
	if n := strings.Count(string(log), "refused="); n != 6 || !strings.Contains(string(log), "TLS handshake") || !strings.Contains(string(log), "wrong secret") ||
		!strings.Contains(string(log), "2 more refusal(s) since") {
		t.Errorf("auth.log, want the raw client, the stranger, the looping stranger's five refusals, the last two summarised:\n%s", log)
	}
	for _, f := range []string{"env.txt", "logs/auth.log", "logs/workers.log"} {
		if b, _ := os.ReadFile(filepath.Join(dir, "out", f)); strings.Contains(string(b), "hunter2") || strings.Contains(string(b), secret) {
			t.Errorf("%s holds the DSN's password or the run's secret", f)
		}
	}
}

// A worker refuses an assignment whose sensitive variable differs from
// its own, naming the variable and neither value.
func TestCheckSensitive(t *testing.T) {
	secret := []byte("0123456789abcdef0123")
	load := func(value string) *config.Spec {
		sf := specFlags{vars: []config.VarArg{{Name: "pg_dsn", Value: value}}}
		spec, diags := checkSpec([]string{"testdata/sensitive.hcl"}, &sf)
		if spec == nil {
			t.Fatal(diags)
		}
		return spec
	}
	hashOf := func(value string) []worker.SensitiveVar {
		b, err := sensitiveValue(findVar(load(value), "pg_dsn"))
		if err != nil {
			t.Fatal(err)
		}
		return []worker.SensitiveVar{{Name: "pg_dsn", Hash: worker.VarHash(secret, "pg_dsn", b)}}
	}
	for _, tc := range []struct {
		name, coordinator, worker string
		secret                    []byte
		want                      string
	}{
		{"the same value", "postgres://a:pw1@db/x", "postgres://a:pw1@db/x", secret, ""},
		{"another password", "postgres://a:pw1@db/x", "postgres://a:pw2@db/x", secret, `sensitive variable "pg_dsn" differs`},
		{"no secret to check with", "postgres://a:pw1@db/x", "postgres://a:pw1@db/x", nil, "no run secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSensitive(load(tc.worker), hashOf(tc.coordinator), tc.secret)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "pw1") || strings.Contains(err.Error(), "pw2") {
				t.Fatalf("got %v, want %q and no value", err, tc.want)
			}
		})
	}
}

func findVar(spec *config.Spec, name string) *config.Variable {
	for _, v := range spec.Variables {
		if v.Name == name {
			return v
		}
	}
	return nil
}
