package examples

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickstartPasses applies the quickstart unchanged on every backend
// at hand: exit 0, every check PASS (its since and predicate_scan checks
// compare the ids themselves).
func TestQuickstartPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("loads databases")
	}
	for _, b := range backends() {
		t.Run(b, func(t *testing.T) {
			spec := filepath.Join(workspace(t, "quickstart.hcl"), "examples", "quickstart.hcl")
			shortSampling(t, spec)
			r := apply(t, spec, "-var", `backends=["`+b+`"]`)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
			}
			for _, l := range r.checks {
				if !strings.HasPrefix(l, "PASS ") {
					t.Errorf("checks.txt: %s", l)
				}
			}
			if len(r.checks) < 8 {
				t.Errorf("%d checks, want at least 8", len(r.checks))
			}
		})
	}
}

// TestQuickstartWrongIDsFail: a since query returning e + 1, or a
// predicate scan returning another column with the right row count, was
// a passing answer when the checks only counted rows. Both now make
// apply exit 1 with a FAIL naming the first wrong id.
func TestQuickstartWrongIDsFail(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database per case")
	}
	tests := []struct {
		name     string
		file     string // under specs/mentat
		rewrite  func(t *testing.T, sql string) string
		scenario string
	}{
		{"since returns e + 1", "sql/since.sql", func(t *testing.T, sql string) string {
			const old = "SELECT DISTINCT e AS issue"
			if strings.Count(sql, old) != 1 {
				t.Fatalf("since.sql no longer holds %q", old)
			}
			return strings.Replace(sql, old, "SELECT DISTINCT e + 1 AS issue", 1)
		}, "since"},
		{"predicate_scan returns the priority, one row per issue", "sql/q4.sql", func(t *testing.T, sql string) string {
			var body []string
			for _, l := range strings.Split(sql, "\n") {
				if !strings.HasPrefix(l, "--") {
					body = append(body, l)
				}
			}
			return "SELECT (SELECT p.v FROM cur_int p WHERE p.e = q.issue AND p.a = (SELECT a FROM attrs WHERE ident = 'issue/priority')) AS issue\nFROM (\n" +
				strings.Join(body, "\n") + "\n) q\n"
		}, "predicate_scan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := workspace(t, "quickstart.hcl")
			spec := filepath.Join(tmp, "examples", "quickstart.hcl")
			shortSampling(t, spec)
			path := filepath.Join(tmp, "specs", "mentat", filepath.FromSlash(tt.file))
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.rewrite(t, string(b))), 0o644); err != nil {
				t.Fatal(err)
			}
			r := apply(t, spec)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
			}
			failed := 0
			for _, l := range r.checks {
				switch {
				case strings.HasPrefix(l, "FAIL "+tt.scenario+" sqlite xs "):
					failed++
					if !strings.Contains(l, "first difference at id #1: got ") || strings.Contains(l, "e+") {
						t.Errorf("FAIL line without the first wrong id as an integer: %s", l)
					}
				case !strings.HasPrefix(l, "PASS "):
					t.Errorf("unexpected check line: %s", l)
				}
			}
			if failed != 1 {
				t.Errorf("%d FAIL lines for %s, want 1: %v", failed, tt.scenario, r.checks)
			}
		})
	}
}
