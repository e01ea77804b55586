package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/journal"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// resumeOverride keeps each run of the resume tests short: two read
// scenarios whose reps interleave, three reps of a short sampling, and a
// PostgreSQL database of the test's own. No scenario writes, so the
// store loaded by the first run is reused by every later one.
const resumeOverride = `
sampling {
  warmup = 1
  min_s  = 0.05
  min_n  = 3
  max_s  = 0.1
  reps   = 3
}

backend "postgres" {
  database = "%s_${scale.name}"
}

matrix {
  scenarios = ["point_lookup", "as_of"]
}
`

// resumeSpec copies the quickstart spec and the files it reads into dir
// (so that a test may change one) and returns the apply arguments of a
// run on backend, without its results directory.
func resumeSpec(t *testing.T, dir, backend, db string) []string {
	t.Helper()
	for _, sub := range []string{"examples", "specs/mentat"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("../..", sub))); err != nil {
			t.Fatal(err)
		}
	}
	override := filepath.Join(dir, "resume_override.hcl")
	if err := os.WriteFile(override, []byte(fmt.Sprintf(resumeOverride, db)), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := filepath.Join(dir, "resume.tfvars.hcl")
	if err := os.WriteFile(vars, []byte("mixed_s = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	return []string{"apply", filepath.Join(dir, "examples", "quickstart.hcl"), override, "-var-file", vars,
		"-var", `backends=["` + backend + `"]`, "-var", "data_dir=" + data, "-data", data, "-q"}
}

// journalRecords counts the rep, point and checked records of a run's
// journal.
func journalRecords(out string) int {
	b, _ := os.ReadFile(filepath.Join(out, journal.File))
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "rep\t") || strings.HasPrefix(l, "point\t") || strings.HasPrefix(l, "checked\t") {
			n++
		}
	}
	return n
}

// killWhen runs apply and SIGKILLs it as soon as when says so (polled
// every millisecond). It reports whether the kill landed; a run that
// ended first must have exited 0.
func killWhen(t *testing.T, args []string, when func() bool) bool {
	t.Helper()
	var mu sync.Mutex
	killed := false
	cmd, wait := startCLI(t, nil, args, nil)
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if when() {
				mu.Lock()
				killed = cmd.Process.Signal(syscall.SIGKILL) == nil
				mu.Unlock()
				return
			}
		}
	}()
	code, log := wait()
	close(stop)
	mu.Lock()
	defer mu.Unlock()
	if killed && code == -1 {
		return true
	}
	if code != exitOK {
		t.Fatalf("the run to kill exited %d:\n%s", code, log)
	}
	return false
}

// csvKeys lists, for each row of a results CSV, the values of the named
// columns joined, sorted.
func csvKeys(t *testing.T, path string, cols ...string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var idx []int
	for _, c := range cols {
		i := slices.Index(rows[0], c)
		if i < 0 {
			t.Fatalf("%s has no column %s", path, c)
		}
		idx = append(idx, i)
	}
	var out []string
	for _, r := range rows[1:] {
		var k []string
		for _, i := range idx {
			k = append(k, r[i])
		}
		out = append(out, strings.Join(k, "|"))
	}
	slices.Sort(out)
	return out
}

var hlogInterval = regexp.MustCompile(`(?m)^[0-9.]+,[0-9.]+,[0-9.]+,HIST`)

// checkWholeRun fails unless out holds the run want holds: every (point,
// rep) exactly once in raw.csv and precision.csv, every point once in
// timings.csv with its HDR log of one interval per rep, the checks all
// PASS under one TOTAL line, and no saved rep left.
func checkWholeRun(t *testing.T, out, want string) {
	t.Helper()
	rep := []string{"scenario", "backend", "scale", "clients", "op", "rep"}
	point := []string{"scenario", "backend", "scale", "clients", "op", "reps"}
	for _, f := range []struct {
		name string
		cols []string
	}{{results.RawFile, rep}, {results.PrecisionFile, rep}, {results.TimingsFile, point}} {
		got, exp := csvKeys(t, filepath.Join(out, f.name), f.cols...), csvKeys(t, filepath.Join(want, f.name), f.cols...)
		if len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("%s holds a row twice:\n%s", f.name, strings.Join(got, "\n"))
		}
		if !slices.Equal(got, exp) {
			t.Errorf("%s rows:\n%s\nwant each once:\n%s", f.name, strings.Join(got, "\n"), strings.Join(exp, "\n"))
		}
	}
	hlogs, _ := filepath.Glob(filepath.Join(out, "hdr", "*.hlog"))
	if len(hlogs) == 0 {
		t.Error("no HDR log")
	}
	for _, h := range hlogs {
		b, err := os.ReadFile(h)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(hlogInterval.FindAll(b, -1)); n != 3 {
			t.Errorf("%s has %d intervals, want one per rep (3)", filepath.Base(h), n)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, results.ChecksFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	pass := 0
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasPrefix(l, "PASS ") {
			t.Errorf("checks.txt: %q", l)
		}
		pass++
	}
	if want := fmt.Sprintf("TOTAL %d PASS, 0 FAIL, 0 SKIP", pass); pass == 0 || lines[len(lines)-1] != want {
		t.Errorf("checks.txt does not end with %q:\n%s", want, b)
	}
	// env.txt's noise summary is the whole run's (its only run): over
	// every row of noise.csv (which rounds the values summed in memory).
	rows, err := results.ReadNoise(out)
	if err != nil {
		t.Fatal(err)
	}
	env, err := results.ReadEnv(out)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(env, func(kv results.KV) bool { return kv.Key == "noise" })
	if want := fmt.Sprintf(" over %d points,", len(rows)); i < 0 || !strings.Contains(env[i].Value, want) {
		t.Errorf("env.txt's noise summary is not over every noise row (%d): %+v", len(rows), env[max(i, 0)])
	}
	if left, _ := filepath.Glob(filepath.Join(out, "logs", "reps", "*")); len(left) > 0 {
		t.Errorf("saved reps left after the run: %v", left)
	}
}

// TestKillAndResumeEveryRecord kills apply (SIGKILL) of a run with three
// interleaved reps after each successive record of its journal, and
// once more while it writes its reports, then resumes each: the resumed
// run exits 0 and prints the run's real check totals, and the results
// hold every (point, rep) exactly once, with TOTAL and every check PASS,
// on SQLite, DuckDB and PostgreSQL. A resume of a finished run does too.
func TestKillAndResumeEveryRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply about 25 times per backend")
	}
	for _, backend := range []string{"sqlite", "duckdb", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
			if backend == "postgres" && dsn == "" {
				t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
			}
			dir := t.TempDir()
			db := fmt.Sprintf("mentat_resume_%d", os.Getpid())
			if backend == "postgres" {
				t.Cleanup(func() { dropDatabase(t, dsn, db+"_xs") })
			}
			args := resumeSpec(t, dir, backend, db)
			full := filepath.Join(dir, "full")
			if code, log := runCLI(t, append(args, "-o", full)); code != exitOK {
				t.Fatalf("the uninterrupted run: exit %d\n%s", code, log)
			}
			records := journalRecords(full)
			if records < 10 {
				t.Fatalf("the run journaled %d records, want a rep record for each of 2 points x 3 reps and more", records)
			}
			resume := func(t *testing.T, out string) {
				t.Helper()
				code, log := runCLI(t, append(args, "-resume", out))
				noCrash(t, log)
				if code != exitOK {
					t.Fatalf("the resume: exit %d\n%s", code, log)
				}
				if !strings.Contains(log, "Checks: 2 PASS, 0 FAIL, 0 SKIP") {
					t.Errorf("the resume does not print the run's check totals:\n%s", log)
				}
				checkWholeRun(t, out, full)
			}
			for k := 1; k <= records+1; k++ {
				name := fmt.Sprintf("after record %d", k)
				if k > records {
					name = "during the reports"
				}
				t.Run(name, func(t *testing.T) {
					out := filepath.Join(dir, fmt.Sprintf("out%d", k))
					when := func() bool { return journalRecords(out) >= k }
					if k > records {
						when = func() bool {
							b, _ := os.ReadFile(filepath.Join(out, results.ChecksFile))
							return bytes.Contains(b, []byte("TOTAL "))
						}
					}
					if !killWhen(t, append(args, "-o", out), when) {
						t.Logf("the run finished before the kill: resuming a finished run")
					}
					resume(t, out)
				})
			}
			t.Run("a finished run", func(t *testing.T) { resume(t, full) })
		})
	}
}

// TestResumeRefusesChangedInputs changes each kind of file a plan is
// made from between a kill and the resume (a query's SQL, an included
// spec file, an override, a -var-file) or removes it: the resume is
// refused naming the file, exit 7, and touches nothing; with the file
// as it was, the same resume goes on.
func TestResumeRefusesChangedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dir := t.TempDir()
	args := resumeSpec(t, dir, "sqlite", "unused")
	out := filepath.Join(dir, "out")
	if !killWhen(t, append(args, "-o", out), func() bool { return journalRecords(out) >= 1 }) {
		t.Fatal("the run finished before the kill")
	}
	kept := map[string][]byte{}
	for _, f := range []string{journal.File, "fingerprints.json", results.RawFile} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		kept[f] = b
	}
	for _, tc := range []struct {
		name, file, change string
		code               int
	}{
		{"a query's SQL", "specs/mentat/sql/q1.sql", " AND 1 = 1", exitUnfinished},
		{"an included spec file", "specs/mentat/queries.hcl", "\n# changed\n", exitUnfinished},
		{"the spec file", "examples/quickstart.hcl", "\n# changed\n", exitUnfinished},
		{"an override file", "resume_override.hcl", "\n# changed\n", exitUnfinished},
		{"a -var-file", "resume.tfvars.hcl", "\n# changed\n", exitUnfinished},
		// The spec cannot be read without it: a spec error, at its file().
		{"a file removed", "specs/mentat/sql/as_of.sql", "", exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o644)
			if tc.change == "" {
				err = os.Remove(path)
			} else {
				err = os.WriteFile(path, append(append([]byte(nil), orig...), tc.change...), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run(append(args, "-resume", out), &stdout, &stderr)
			noCrash(t, stderr.String())
			abs, _ := filepath.Abs(path)
			if code != tc.code || !strings.Contains(stderr.String(), abs) {
				t.Errorf("resume after %s changed: exit %d, want %d naming %s:\n%s%s", tc.file, code, tc.code, abs, stdout.String(), stderr.String())
			}
			for f, b := range kept {
				if now, _ := os.ReadFile(filepath.Join(out, f)); !bytes.Equal(now, b) {
					t.Errorf("the refused resume changed %s", f)
				}
			}
		})
	}
	code, log := runCLI(t, append(args, "-resume", out))
	if code != exitOK {
		t.Fatalf("the resume with the inputs as they were: exit %d\n%s", code, log)
	}
	checkWholeRun(t, out, out)
}
