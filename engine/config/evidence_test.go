package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

// Evidence is on unless the sampling block says `evidence = false`; a
// value that is not a bool is an error at its line.
func TestSamplingEvidence(t *testing.T) {
	cases := []struct {
		override string
		want     bool
		errLine  int
	}{
		{"", true, 0},
		{"sampling {\n  evidence = false\n}\n", false, 0},
		{"sampling {\n  evidence = true\n}\n", true, 0},
		{"sampling {\n  min_s = 1\n  evidence = \"sometimes\"\n}\n", false, 3},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.override, "\n", " "), func(t *testing.T) {
			paths := composePaths("base/spec.hcl")
			if tc.override != "" {
				p := filepath.Join(t.TempDir(), "x_override.hcl")
				if err := os.WriteFile(p, []byte(tc.override), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			spec, diags := loadAndValidate(paths, config.Options{})
			if tc.errLine > 0 {
				if !diags.HasErrors() {
					t.Fatal("no error")
				}
				d := diags[0]
				if d.Subject == nil || d.Subject.Start.Line != tc.errLine || !strings.Contains(d.Detail, "evidence") && !strings.Contains(d.Summary, "evidence") {
					t.Errorf("error %v at %v, want one naming evidence at line %d", d, d.Subject, tc.errLine)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if got := spec.Sampling.Values.Evidence; got != tc.want {
				t.Errorf("evidence = %v, want %v", got, tc.want)
			}
		})
	}
}
