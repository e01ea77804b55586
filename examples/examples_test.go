// Package examples holds end-to-end tests of the example specs: each is
// copied into a temporary directory with the shared SQL it reads, run by
// the mentat-spec command on real databases, and its exit code and
// checks.txt read back. Wrong answers are made by editing the copied SQL.
package examples

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// repoRoot is the repository root (this file's parent directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// binary builds the command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mentat-spec-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mentat-spec")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/mentat-spec")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building mentat-spec: %v\n%s", buildErr, binPath)
	}
	return binPath
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == "data" || d.Name() == "results" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// workspace copies an example (a file or a directory under examples/)
// and specs/mentat into a temp dir laid out like the repository, and
// returns the temp root.
func workspace(t *testing.T, example string) string {
	t.Helper()
	root, tmp := repoRoot(t), t.TempDir()
	copyTree(t, filepath.Join(root, "specs", "mentat"), filepath.Join(tmp, "specs", "mentat"))
	// spec_home() is the copy's specs/: the adapter backend's program is
	// found beside it, as in a checkout.
	copyTree(t, filepath.Join(root, "examples", "adapters"), filepath.Join(tmp, "examples", "adapters"))
	src := filepath.Join(root, "examples", example)
	if fi, err := os.Stat(src); err == nil && fi.IsDir() {
		copyTree(t, src, filepath.Join(tmp, "examples", example))
	} else {
		if err := os.MkdirAll(filepath.Join(tmp, "examples"), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, "examples", example), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

// edit replaces old with new exactly once in the file at path.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", path, old, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shortSampling makes a spec's sampling block measure briefly: these
// tests are about answers, not timings.
func shortSampling(t *testing.T, spec string) {
	t.Helper()
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\nsampling {")
	j := strings.Index(s[i+1:], "\n}\n")
	if i < 0 || j < 0 {
		t.Fatalf("%s has no top-level sampling block", spec)
	}
	s = s[:i+1] + "sampling {\n  warmup  = 1\n  min_s   = 0.02\n  min_n   = 3\n  max_s   = 0.1\n  reps    = 1\n  probe_s = 20\n}\n" + s[i+1+j+3:]
	if err := os.WriteFile(spec, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run is one apply: its exit code, output and checks.txt lines.
type run struct {
	code   int
	output string
	checks []string
}

// apply runs `mentat-spec apply spec args...` in the spec's directory.
func apply(t *testing.T, spec string, args ...string) run {
	t.Helper()
	return applyTo(t, spec, filepath.Join(t.TempDir(), "results"), args...)
}

// applyTo is apply writing the results to out.
func applyTo(t *testing.T, spec, out string, args ...string) run {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"apply", filepath.Base(spec), "-q", "-o", out, "-data", filepath.Join(t.TempDir(), "data")}, args...)...)
	cmd.Dir = filepath.Dir(spec)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	r := run{output: buf.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "checks.txt")); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" && !strings.HasPrefix(l, "TOTAL ") {
				r.checks = append(r.checks, l)
			}
		}
	}
	return r
}

// backends are the backends a test can use here: the embedded ones, and
// PostgreSQL when MENTAT_SPEC_PG_DSN names a server.
func backends() []string {
	b := []string{"sqlite", "duckdb"}
	if os.Getenv("MENTAT_SPEC_PG_DSN") != "" {
		b = append(b, "postgres")
	}
	return b
}
