package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeVariant writes testdata/apply.hcl with old replaced by new into a
// temporary directory and returns its path.
func writeVariant(t *testing.T, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "apply.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("apply.hcl lacks %q", old)
	}
	p := filepath.Join(t.TempDir(), "variant.hcl")
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNothingSelectedIsAnError: a spec or -var that selects no scale, no
// backend or no scenario, or a for_each over a truth the dataset does not
// declare, is a diagnostic with its location and exit 2, never a run that
// measures nothing and exits 0.
func TestNothingSelectedIsAnError(t *testing.T) {
	const matrix = "matrix {\n  scales    = var.scales\n  backends  = var.backends\n  scenarios = var.scenarios\n}\n" +
		"variable \"scales\" {\n  default = [\"xs\"]\n}\n" +
		"variable \"backends\" {\n  default = [\"sqlite\"]\n}\n" +
		"variable \"scenarios\" {\n  default = [\"lookup\"]\n}\n"
	withMatrix := writeVariant(t, "sampling {", matrix+"sampling {")
	noBackend := writeVariant(t, `backend "sqlite" {`, `backend "sqlite" {`)
	// Cut the backend and its scenario out: a spec that declares neither.
	b, _ := os.ReadFile(noBackend)
	s := string(b)
	s = s[:strings.Index(s, `backend "sqlite" {`)]
	if err := os.WriteFile(noBackend, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	noTruth := writeVariant(t, "for_each      = truth.users", "for_each      = truth.no_such_truth")

	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"validate: no scale", []string{"validate", withMatrix, "-var", "scales=[]"}, []string{"variant.hcl:15:", "Nothing selected", "selects no scale"}},
		{"validate: no backend", []string{"validate", withMatrix, "-var", "backends=[]"}, []string{"variant.hcl:16:", "selects no backend"}},
		{"validate: no scenario", []string{"validate", withMatrix, "-var", "scenarios=[]"}, []string{"variant.hcl:17:", "selects no scenario"}},
		{"apply: no scale", []string{"apply", withMatrix, "-var", "scales=[]"}, []string{"variant.hcl:15:", "Nothing selected"}},
		{"apply: no scenario", []string{"apply", withMatrix, "-var", "scenarios=[]"}, []string{"variant.hcl:17:", "Nothing selected"}},
		{"apply: no backend declared", []string{"apply", noBackend}, []string{"variant.hcl:", "Nothing to run"}},
		{"validate: for_each over an undeclared truth", []string{"validate", noTruth}, []string{"variant.hcl:", "no_such_truth"}},
		{"plan: for_each over an undeclared truth", []string{"plan", noTruth}, []string{"variant.hcl:", "no_such_truth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := tt.args
			if args[0] == "apply" {
				args = append(args, "-q", "-o", filepath.Join(dir, "results"), "-var", "data_dir="+filepath.Join(dir, "data"))
			}
			code, stdout, stderr := runT(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUsage, stdout, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
				t.Errorf("a refused apply created its results directory")
			}
		})
	}
}

// hugeVariant is testdata/apply.hcl with a history (so counting datoms
// needs a pass over the ids) and users as a variable.
func hugeVariant(t *testing.T) string {
	t.Helper()
	p := writeVariant(t, "  truth \"users\" {", "  history \"rescores\" {\n    entity   = \"user\"\n    attr     = \"user/score\"\n    fraction = 0.05\n    files    = 1\n  }\n  truth \"users\" {")
	b, _ := os.ReadFile(p)
	s := strings.Replace(string(b), "    attr \"user/name\" {", "    attr \"user/score\" {\n      type = \"long\"\n      gen  = uniform(1, 5)\n    }\n    attr \"user/name\" {", 1)
	s = strings.Replace(s, "scale \"xs\" {\n  users = 50\n}", "variable \"users\" {\n  default = 50\n}\n\nscale \"xs\" {\n  users = var.users\n}", 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runBounded runs the CLI and fails the test if it has not answered in
// limit: a plan that counts 10^11 entities one by one takes hours.
func runBounded(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	type out struct {
		code           int
		stdout, stderr string
	}
	done := make(chan out, 1)
	go func() {
		var so, se bytes.Buffer
		code := run(args, &so, &se)
		done <- out{code, so.String(), se.String()}
	}()
	select {
	case o := <-done:
		return o.code, o.stdout, o.stderr
	case <-time.After(limit):
		t.Fatalf("%v has not answered in %s", args, limit)
		return 0, "", ""
	}
}

// TestHugeScale: a scale of about 10^11 datoms plans at once (the datom
// counts are estimated) and apply refuses it with the estimate, before
// computing its truth, when it exceeds the declared limit or the free disk.
func TestHugeScale(t *testing.T) {
	spec := hugeVariant(t)
	huge := []string{"-var", "users=100000000000"}
	code, stdout, stderr := runBounded(t, time.Minute, append([]string{"plan", spec}, huge...)...)
	if code != exitOK || !strings.Contains(stdout, "about 310,") {
		t.Fatalf("plan: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, tt := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"over the free disk", nil, "free"},
		{"over the declared limit", []string{"-max-store-gb", "1"}, "over the limit of"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"apply", spec, "-o", filepath.Join(dir, "results"), "-var", "data_dir=" + filepath.Join(dir, "data")}, huge...)
			code, stdout, stderr := runBounded(t, time.Minute, append(args, tt.extra...)...)
			if code != exitUnfinished {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitUnfinished, stdout, stderr)
			}
			if !strings.Contains(stderr, "refusing to load") || !strings.Contains(stderr, tt.want) || !strings.Contains(stdout, "store of about") {
				t.Errorf("no refusal with the estimate:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		})
	}
	// The limit refuses only what exceeds it.
	dir := t.TempDir()
	code, stdout, stderr = runBounded(t, time.Minute, "apply", spec, "-q", "-max-store-gb", "1", "-o", filepath.Join(dir, "results"), "-var", "data_dir="+filepath.Join(dir, "data"))
	if code != exitOK {
		t.Errorf("a small scale under the limit: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
