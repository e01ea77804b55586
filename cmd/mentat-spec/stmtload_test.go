package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateStatementLoadMistakes: a mistake in a statement load or a
// query's answer is a diagnostic at its line and exit 2, never a panic.
func TestValidateStatementLoadMistakes(t *testing.T) {
	for _, tc := range []struct{ name, override, want string }{
		{"format", "backend \"sqlite\" {\n  load {\n    statement = \"SELECT edn_t(:tx)\"\n    format = \"yaml\"\n  }\n}\n", `o_override.hcl:4:14: Unsupported format`},
		{"parameter", "backend \"sqlite\" {\n  load {\n    statement = \"SELECT edn_t(:tx, :e)\"\n  }\n}\n", `o_override.hcl:3:17: Invalid statement parameters`},
		{"answer", "query \"q3\" {\n  answer = \"csv\"\n}\n", `o_override.hcl:2:12: Unsupported answer format`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "o_override.hcl")
			if err := os.WriteFile(p, []byte(tc.override), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runT(t, "validate", quickstart, p)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}
