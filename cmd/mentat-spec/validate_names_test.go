package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNameMistakesExit2: a threshold of an op no row has and a weight sum
// that overflows are refused alike by validate, plan and apply (exit 2,
// file:line:col, the name meant), before any database is touched.
func TestNameMistakesExit2(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"threshold op", "threshold \"gate\" {\n  op     = \"reed\"\n  p99_ms = 5\n}\n",
			[]string{"gate.hcl:2:12: Unknown op", `Did you mean "read"?`}},
		{"weights past the largest number", "scenario \"lookup\" {\n  read {\n    operation \"a\" {\n      weight = 1e308\n      query  = query.name\n    }\n" +
			"    operation \"b\" {\n      weight = 1e308\n      query  = query.name\n    }\n  }\n}\n",
			[]string{"gate_override.hcl:7:5: Invalid weight", "sum past the largest number"}},
	} {
		for _, cmd := range []string{"validate", "plan", "apply"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				dir := t.TempDir()
				name := "gate.hcl"
				if strings.Contains(tc.file, "scenario") {
					name = "gate_override.hcl"
				}
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "results")
				args := []string{cmd, "testdata/apply.hcl", path}
				if cmd == "apply" {
					args = append(args, "-q", "-o", out, "-var", "data_dir="+filepath.Join(dir, "data"))
				}
				code, _, stderr := runT(t, args...)
				if code != exitUsage {
					t.Fatalf("exit %d, want %d:\n%s", code, exitUsage, stderr)
				}
				flat := strings.Join(strings.Fields(stderr), " ") // the text is wrapped at 100 columns
				for _, w := range tc.want {
					if !strings.Contains(flat, w) {
						t.Errorf("stderr lacks %q:\n%s", w, stderr)
					}
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("apply created %s for a spec it refused", out)
				}
			})
		}
	}
}
