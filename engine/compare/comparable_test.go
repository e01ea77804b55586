package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

const baseEnv = `# invocation 2026-11-30T13:27:31Z
hostname: vm
mentat_spec_version: v1
spec_sha256: aaa
dataset: issues
scales: xs
sampling: reps=5
var.avet: true (from default)
dataset.xs: 99124 datoms
backend.sqlite.xs.driver: sqlite
backend.sqlite.xs.version: 3.54.1
backend.sqlite.xs.setting.synchronous: 1
backend.sqlite.xs.option.path: data/q.sqlite
`

func envDir(t *testing.T, env string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.EnvFile), []byte(env), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDifferences(t *testing.T) {
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(baseEnv) }
	tests := []struct {
		name string
		new  string
		want []Difference
	}{
		{"identical", baseEnv, nil},
		{"where a variable came from", edit("(from default)", "(from -var)"), nil},
		{"machine facts and paths", edit("hostname: vm", "hostname: other", "data/q.sqlite", "/tmp/q.sqlite"), nil},
		{"a variable's value", edit("var.avet: true (from default)", "var.avet: false (from -var)"), []Difference{{"var.avet", "true", "false"}}},
		{"the spec", edit("spec_sha256: aaa", "spec_sha256: bbb"), []Difference{{"spec_sha256", "aaa", "bbb"}}},
		{"the engine", edit("mentat_spec_version: v1", "mentat_spec_version: v2"), []Difference{{"mentat_spec_version", "v1", "v2"}}},
		{"a setting", edit("synchronous: 1", "synchronous: 2"), []Difference{{"backend.sqlite.xs.setting.synchronous", "1", "2"}}},
		{"a backend version", edit("3.54.1", "3.55.0"), []Difference{{"backend.sqlite.xs.version", "3.54.1", "3.55.0"}}},
		// An option that changes what is measured counts; where the store lives does not.
		{"a measuring option", baseEnv + "backend.sqlite.xs.option.stable_plans: off\n", []Difference{{"backend.sqlite.xs.option.stable_plans", absent, "off"}}},
		{"where the store lives", edit("backend.sqlite.xs.option.path: data/q.sqlite", "backend.sqlite.xs.option.database: other\nbackend.sqlite.xs.option.dsn: (redacted)"), nil},
		{"a variable only NEW has", baseEnv + "var.extra: 1 (from default)\n", []Difference{{"var.extra", absent, "1"}}},
		// A backend only one run has shows in var.backends; its entries are not listed one by one.
		{"a backend only NEW ran", baseEnv + "backend.duckdb.xs.driver: duckdb\nbackend.duckdb.xs.setting.threads: 2\n", nil},
		// A later invocation appended to the directory: its value wins.
		{"the latest value counts", baseEnv + "# invocation 2026-11-30T14:00:00Z\nvar.avet: false (from -var)\n", []Difference{{"var.avet", "true", "false"}}},
	}
	oldDir := envDir(t, baseEnv)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, err := Differences(loadRun(t, oldDir), loadRun(t, envDir(t, tc.new)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) || len(notes) != 0 {
				t.Errorf("differences %v notes %v, want %v", got, notes, tc.want)
			}
		})
	}
}
