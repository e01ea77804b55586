package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// crashOverride keeps each run short: short sampling, three scenarios (the
// last one writes to the store, so every run reloads it), and a PostgreSQL
// database of the test's own.
const crashOverride = `
sampling {
  warmup  = 1
  min_s   = 0.3
  min_n   = 5
  max_s   = 0.5
  reps    = 1
}

backend "postgres" {
  database = "%s_${scale.name}"
}

matrix {
  scenarios = ["point_lookup", "ref_traversal", "write_mixed"]
}
`

// moment is when a run is killed: delay after the first output line that
// matches after, then, with poll set, as soon as the store is being
// created (its temporary name exists) or exists.
type moment struct {
	name  string
	after *regexp.Regexp
	delay time.Duration
	poll  storePoll
}

type storePoll int

const (
	noPoll storePoll = iota
	pollCreating
	pollExists
)

var crashMoments = []moment{
	{"while the store is created", regexp.MustCompile(`: store of about|computing the truth`), 0, pollCreating},
	{"as soon as the store exists", regexp.MustCompile(`: store of about|computing the truth`), 0, pollExists},
	{"at the start of the load", regexp.MustCompile(`: loading [0-9,]+ datoms`), 0, noPoll},
	{"during the load", regexp.MustCompile(`: loading [0-9,]+ datoms`), 60 * time.Millisecond, noPoll},
	{"during the after-load SQL", regexp.MustCompile(`: loading [0-9,]+ datoms`), 700 * time.Millisecond, noPoll},
	// When the kill before landed after the after-load SQL (a fast load
	// on a loaded machine), this run reuses the store instead of loading:
	// it is then killed right after saying so, before the points.
	{"after the after-load SQL", regexp.MustCompile(`: loaded [0-9,]+ datoms in|: reusing the store loaded by an earlier run`), 0, noPoll},
	{"between points", regexp.MustCompile(`^xs/\w+ +point_lookup `), 0, noPoll},
	{"mid-point", regexp.MustCompile(`^PASS xs/\w+ point_lookup`), 150 * time.Millisecond, noPoll},
	{"during the checks", regexp.MustCompile(`^PASS xs/\w+ `), 0, noPoll},
	{"during the writes", regexp.MustCompile(`^PASS xs/\w+ ref_traversal`), 400 * time.Millisecond, noPoll},
}

// crashArgs is the apply command line of every run of one backend.
func crashArgs(dir, backend, override string) []string {
	return []string{"apply", quickstart, override, "-var", `backends=["` + backend + `"]`, "-var", "mixed_s=1",
		"-var", "data_dir=" + filepath.Join(dir, "data"), "-data", filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out")}
}

// startCLI starts the CLI as a child process (this test binary, see
// TestMain) and sends each line it prints, stdout and stderr merged, to
// lines. The returned wait ends when the child has exited.
func startCLI(t *testing.T, env []string, args []string, line func(*exec.Cmd, string)) (*exec.Cmd, func() (int, string)) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asCLI+"=1"), env...)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if line != nil {
				line(cmd, sc.Text())
			}
		}
		r.Close()
	}()
	return cmd, func() (int, string) {
		err := cmd.Wait()
		<-done
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String()
	}
}

// killAt runs the CLI and SIGKILLs it at m. It fails the test if the run
// ended before, or if it refused its store.
func killAt(t *testing.T, args []string, m moment, exists func(storePoll) bool) string {
	t.Helper()
	var once sync.Once
	var mu sync.Mutex
	var killed bool
	var last string // the last line printed before the kill
	_, wait := startCLI(t, nil, args, func(cmd *exec.Cmd, line string) {
		mu.Lock()
		if !killed {
			last = line
		}
		mu.Unlock()
		if !m.after.MatchString(line) {
			return
		}
		kill := func() {
			mu.Lock()
			defer mu.Unlock()
			if cmd.Process.Signal(syscall.SIGKILL) == nil {
				killed = true
			}
		}
		once.Do(func() {
			if m.poll == noPoll {
				time.AfterFunc(m.delay, kill)
				return
			}
			go func() {
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
					if exists(m.poll) {
						kill()
						return
					}
					time.Sleep(200 * time.Microsecond)
				}
			}()
		})
	})
	code, out := wait()
	mu.Lock()
	defer mu.Unlock()
	if !killed || code != -1 {
		t.Fatalf("%s: the run ended (exit %d) before it was killed:\n%s", m.name, code, out)
	}
	t.Logf("killed %s, after %q", m.name, last)
	return out
}

var (
	passLine = regexp.MustCompile(`(?m)^PASS `)
	failLine = regexp.MustCompile(`(?m)^FAIL `)
)

// checkLine is a line of checks.txt.
var checkLine = regexp.MustCompile(`^((PASS|FAIL|SKIP) \S+ \S+ \S+ [^:]+: .*|TOTAL \d+ PASS, \d+ FAIL, \d+ SKIP)$`)

// wholeLines fails on any line of the results directory's CSV files whose
// fields are not those of the header, and any check line that does not
// parse; torn lists lines allowed to be torn (injected by the test).
func wholeLines(t *testing.T, dir string, torn ...string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, l := range torn {
		allowed[l] = true
	}
	for _, name := range []string{results.TimingsFile, results.RawFile, results.LoadsFile, results.PrecisionFile, results.WindowsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s ends in a torn line: %q", name, b[bytes.LastIndexByte(b, '\n')+1:])
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		width := len(strings.Split(lines[0], ","))
		for i, l := range lines {
			if allowed[l] {
				continue
			}
			rec, err := csv.NewReader(strings.NewReader(l)).Read()
			if err != nil || len(rec) != width {
				t.Errorf("%s line %d is not a whole row of %d fields: %q (%v)", name, i+1, width, l, err)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ChecksFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l != "" && !checkLine.MatchString(l) {
			t.Errorf("checks.txt line %d does not parse: %q", i+1, l)
		}
	}
}

// TestKillAndResume kills a real apply with SIGKILL at several moments (in
// the load, after it, between and inside points, during checks and
// writes), one after the other on the same data directory and results
// directory, as a user would rerun; then a last rerun must end with every
// check PASS and exit 0. No line of any results file may be torn by a
// kill, a line torn by a crash of the machine (injected) is skipped, and
// no store left half-loaded or half-written may be refused.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply about 27 times")
	}
	for _, backend := range []string{"sqlite", "duckdb", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
			if backend == "postgres" && dsn == "" {
				t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
			}
			dir := t.TempDir()
			db := fmt.Sprintf("mentat_crash_%d", os.Getpid())
			override := filepath.Join(dir, "crash_override.hcl")
			if err := os.WriteFile(override, []byte(fmt.Sprintf(crashOverride, db)), 0o644); err != nil {
				t.Fatal(err)
			}
			if backend == "postgres" {
				t.Cleanup(func() { dropDatabase(t, dsn, db+"_xs") })
			}
			args := crashArgs(dir, backend, override)
			out := filepath.Join(dir, "out")
			exists := storeExists(t, backend, filepath.Join(dir, "data"), dsn, db+"_xs")
			for _, m := range crashMoments {
				log := killAt(t, args, m, exists)
				if strings.Contains(log, "not created by") || strings.Contains(log, "FAILED") {
					t.Fatalf("%s: the run before the kill failed or refused its store:\n%s", m.name, log)
				}
				wholeLines(t, out)
				if backend == "duckdb" {
					if _, err := os.Stat(filepath.Join(dir, "data", "quickstart-xs.duckdb.wal")); err == nil {
						t.Logf("%s: the kill left a DuckDB WAL", m.name)
					}
				}
			}
			// A crash of the machine can leave a torn line: the next run
			// ends it and every reader skips it.
			torn := "point_lookup," + backend + ",xs,12"
			f, err := os.OpenFile(filepath.Join(out, results.TimingsFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(torn); err != nil {
				t.Fatal(err)
			}
			f.Close()
			before, err := results.Load(out)
			if err != nil {
				t.Fatal(err)
			}

			_, wait := startCLI(t, nil, args, nil)
			code, log := wait()
			if code != exitOK {
				t.Fatalf("the rerun after the kills: exit %d\n%s", code, log)
			}
			noCrash(t, log)
			if len(passLine.FindAllString(log, -1)) < 3 || failLine.MatchString(log) {
				t.Errorf("the rerun's checks are not all PASS:\n%s", log)
			}
			wholeLines(t, out, torn)
			if left, _ := filepath.Glob(filepath.Join(dir, "data", "*.creating-*")); len(left) > 0 {
				t.Errorf("files of a killed creation are left: %v", left)
			}
			if backend == "postgres" && exists(pollCreating) {
				t.Errorf("the database of a killed creation is left")
			}
			after, err := results.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Timings) <= len(before.Timings) {
				t.Errorf("timings.csv: %d rows after the rerun, %d before", len(after.Timings), len(before.Timings))
			}
			if code, stdout, stderr := runT(t, "report", out); code != exitOK {
				t.Errorf("report: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// storeExists reports whether the store of backend exists (its file, or
// its PostgreSQL database) or is being created under its temporary name.
func storeExists(t *testing.T, backend, data, dsn, database string) func(storePoll) bool {
	switch backend {
	case "postgres":
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		return func(p storePoll) bool {
			name := database
			if p == pollCreating {
				name += "__mentat_creating"
			}
			var n int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
				t.Error(err)
				return false
			}
			return n > 0
		}
	default:
		path := filepath.Join(data, "quickstart-xs."+backend)
		return func(p storePoll) bool {
			if p == pollCreating {
				m, _ := filepath.Glob(path + ".creating-*")
				return len(m) > 0
			}
			_, err := os.Stat(path)
			return err == nil
		}
	}
}
