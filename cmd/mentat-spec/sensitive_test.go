package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// argvWatch records, until stopped, every process on the host whose
// command line holds needle: a sensitive value must never be an
// argument, of a worker, a sampler's or a restart's command or anything
// else this run starts. It counts the worker processes it saw, to show
// that it looked while they ran.
func argvWatch(t *testing.T, needle string) (stop func() []string, workers func() int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var mu sync.Mutex
	var seen []string
	pids := map[string]bool{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				if e.Name()[0] < '0' || e.Name()[0] > '9' {
					continue
				}
				b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				if err != nil {
					continue
				}
				mu.Lock()
				if bytes.Contains(b, []byte(needle)) {
					seen = append(seen, strings.ReplaceAll(string(b), "\x00", " "))
				}
				if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[1] == "worker" && args[0] == self {
					pids[e.Name()] = true
				}
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	stop = func() []string {
		close(done)
		wg.Wait()
		return seen
	}
	return stop, func() int { mu.Lock(); defer mu.Unlock(); return len(pids) }
}

// filesHolding lists the files under dir whose content or name holds
// needle.
func filesHolding(t *testing.T, dir, needle string) []string {
	t.Helper()
	var out []string
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), needle) {
			out = append(out, path+" (its name)")
		}
		if d.IsDir() {
			return nil
		}
		n++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if i := bytes.Index(b, []byte(needle)); i >= 0 {
			out = append(out, fmt.Sprintf("%s: ...%s...", path, b[max(0, i-80):min(len(b), i+len(needle)+40)]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d files under %s: the run wrote less than expected", n, dir)
	}
	return out
}

// TestSensitiveNowhere sets one sensitive value in every place a value
// can go (testdata/secrets/secrets.hcl: backend setup and after_load SQL,
// query SQL text and parameters, a scale attribute, a local, a scenario's
// description, check expectations and a check's label, sampler queries
// and commands, restart and drop_caches commands, a failing statement's
// error) and runs plan, plan -json and apply with worker processes on
// SQLite: the value is in no file of the results directory, no console
// line and no process's argv.
func TestSensitiveNowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	secret := fmt.Sprintf("zqTok%dx%d", os.Getpid(), time.Now().UnixNano()%1e6)
	t.Setenv(asCLI, "1")
	t.Setenv("MENTAT_SPEC_VAR_tok", secret)
	dir := t.TempDir()
	spec := filepath.Join("testdata", "secrets", "secrets.hcl")
	vars := []string{"-var", "data_dir=" + filepath.Join(dir, "data")}

	// A spec whose error message holds the value: plan exits 2 and says
	// where, without the value.
	bad := filepath.Join(dir, "bad_override.hcl")
	if err := os.WriteFile(bad, []byte("query \"notes\" {\n  sql = file(\"${var.tok}.sql\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop, workers := argvWatch(t, secret)
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"plan", spec}, exitOK},
		{[]string{"plan", "-json", spec}, exitOK},
		{[]string{"plan", spec, bad}, exitUsage},
		{[]string{"plan", "-json", spec, bad}, exitUsage},
		{[]string{"validate", spec, bad}, exitUsage},
	} {
		code, stdout, stderr := runT(t, append(tt.args, vars...)...)
		if code != tt.code {
			t.Fatalf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.code, stdout, stderr)
		}
		if strings.Contains(stdout+stderr, secret) {
			t.Errorf("%v prints the sensitive value:\n%s%s", tt.args, stdout, stderr)
		}
		if tt.code == exitUsage && !strings.Contains(stdout+stderr, "(sensitive).sql") {
			t.Errorf("%v: the error does not show where the value was:\n%s%s", tt.args, stdout, stderr)
		}
	}
	out := filepath.Join(dir, "out")
	applyNowhere(t, secret, stop, append([]string{"apply", spec, "-o", out}, vars...))
	if n := workers(); n < 1 {
		t.Errorf("the watch saw %d worker processes: it did not look while they ran", n)
	}
	// The run did go through the places the value was put in.
	for file, want := range map[string]string{
		"checks.txt":                  "FAIL lookup sqlite xs labelled",
		"logs/sampler-cmd.csv":        "sampled (sensitive)",
		"logs/sampler-sql.csv":        "(sensitive)",
		"logs/workers.log":            "workers=2",
		"summary.md":                  "(sensitive)",
		"logs/sampler-broken_sql.csv": "missing_(sensitive)",
	} {
		b, err := os.ReadFile(filepath.Join(out, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q (%v):\n%s", file, want, err, b)
		}
	}
}

// TestSensitiveArgvRefused: a sensitive value written into a command's
// arguments (restart, drop_caches, a sampler's command) is refused with
// the attribute's file:line:col and exit 2, without printing the value;
// the command reads it from its environment instead.
func TestSensitiveArgvRefused(t *testing.T) {
	const secret = "argv-secret-4242"
	t.Setenv("MENTAT_SPEC_VAR_tok", secret)
	spec := filepath.Join("testdata", "secrets", "secrets.hcl")
	for _, tt := range []struct{ name, override, at string }{
		{"restart", `backend "sqlite" { restart = ["tool", "--token=${var.tok}"] }`, ":1:30"},
		{"drop_caches", `backend "sqlite" { drop_caches = ["tool", var.tok] }`, ":1:34"},
		{"sampler command", `sampler "cmd" { command = ["curl", "-H", "Authorization: ${var.tok}"] }`, ":1:27"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			override := filepath.Join(t.TempDir(), "argv_override.hcl")
			if err := os.WriteFile(override, []byte(tt.override+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runT(t, "plan", spec, override)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitUsage, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("the refusal prints the value:\n%s", stderr)
			}
			if !strings.Contains(stderr, "Sensitive value in a command's arguments") || !strings.Contains(stderr, "argv_override.hcl"+tt.at) {
				t.Errorf("no diagnostic at %s:\n%s", tt.at, stderr)
			}
		})
	}
}

// applyNowhere runs apply (which must exit 1: a check expects a wrong
// value) while stop's watch runs, then fails on the secret in its
// output, in a process's argv or in a file of the results directory.
func applyNowhere(t *testing.T, secret string, stop func() []string, args []string) {
	t.Helper()
	out := args[slices.Index(args, "-o")+1]
	code, stdout, stderr := runT(t, args...)
	argv := stop()
	// The check expecting a wrong value fails: exit 1, every file written.
	if code != exitCheck {
		t.Fatalf("apply: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitCheck, stdout, stderr)
	}
	for _, a := range argv {
		t.Errorf("a process had the sensitive value in its argv: %s", a)
	}
	// The value, and upper(var.tok) of local.shout.
	for _, v := range []string{secret, strings.ToUpper(secret)} {
		if strings.Contains(stdout+stderr, v) {
			t.Errorf("apply prints %s:\nstdout:\n%s\nstderr:\n%s", v, stdout, stderr)
		}
		for _, f := range filesHolding(t, out, v) {
			t.Errorf("%s is written in %s", v, f)
		}
	}
}

// TestSensitiveNowherePostgres: the value in a PostgreSQL backend's DSN
// and settings (application_name), with worker processes, and read back
// from pg_stat_activity by a sampler.
func TestSensitiveNowherePostgres(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset: run `make test`, which starts a throwaway PostgreSQL")
	}
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	if !strings.Contains(dsn, "?") {
		dsn += "?"
	}
	secret := fmt.Sprintf("zqPg%dx%d", os.Getpid(), time.Now().UnixNano()%1e6)
	db := fmt.Sprintf("mentat_secrets_%d", os.Getpid())
	t.Setenv(asCLI, "1")
	t.Setenv("MENTAT_SPEC_VAR_tok", secret)
	t.Setenv("MENTAT_SPEC_VAR_pg_dsn", dsn)
	t.Cleanup(func() { dropDatabase(t, dsn, db) })
	dir := t.TempDir()
	spec := []string{filepath.Join("testdata", "secrets", "secrets.hcl"), filepath.Join("testdata", "secrets", "pg.hcl"), filepath.Join("testdata", "secrets", "pg_override.hcl")}
	vars := []string{"-var", "data_dir=" + filepath.Join(dir, "data"), "-var", "database=" + db}
	stop, workers := argvWatch(t, secret)
	for _, args := range [][]string{{"plan"}, {"plan", "-json"}} {
		code, stdout, stderr := runT(t, append(append(args, spec...), vars...)...)
		if code != exitOK || strings.Contains(stdout+stderr, secret) {
			t.Fatalf("%v: exit %d, or the value printed:\n%s%s", args, code, stdout, stderr)
		}
	}
	out := filepath.Join(dir, "out")
	applyNowhere(t, secret, stop, append(append([]string{"apply"}, spec...), append(vars, "-o", out)...))
	if n := workers(); n < 1 {
		t.Errorf("the watch saw %d worker processes: it did not look while they ran", n)
	}
	for file, want := range map[string]string{
		"checks.txt":                "FAIL lookup postgres xs labelled",
		"logs/sampler-sessions.csv": ",(sensitive),(sensitive)\n",
		"logs/workers.log":          "workers=2",
	} {
		b, err := os.ReadFile(filepath.Join(out, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q (%v):\n%s", file, want, err, b)
		}
	}
}
