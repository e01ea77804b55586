package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
