package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	cmds := []string{"apply", "compare", "plan", "validate", "version"}
	for _, tc := range []struct{ name, want string }{
		{"aply", "apply"},
		{"apyl", "apply"},
		{"plna", "plan"},
		{"valdiate", "validate"},
		{"apply", ""}, // not a slip: itself
		{"xyz", ""},
		{"ver", ""}, // too far from version
	} {
		if got := closest(tc.name, cmds); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// What a user gets back from the slips everyone makes, and the commands
// that answer a question.
func TestCLIHelpsTheUser(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string // each must appear
		stderr     []string
		jsonStdout bool
	}{
		{"misspelt command", []string{"aply"}, exitUsage, nil, []string{`unknown command "aply"`, `Did you mean "apply"?`}, false},
		{"help of a command", []string{"help", "apply"}, exitOK, []string{"Usage: mentat-spec apply", "-progress-s", "-phase"}, nil, false},
		{"help of a misspelt command", []string{"help", "aply"}, exitUsage, nil, []string{`Did you mean "apply"?`}, false},
		{"help", []string{"help"}, exitOK, []string{"Commands:", "mentat-spec help <command>"}, nil, false},
		{"misspelt flag", []string{"plan", "testdata/apply.hcl", "-jsn"}, exitUsage, nil, []string{"Did you mean -json?"}, false},
		{"misspelt variable", []string{"validate", "testdata/apply.hcl", "-var", "data_dri=x"}, exitUsage, nil,
			[]string{"Undeclared variable", `Did you mean "data_dir"?`}, false},
		{"a bare list in -var", []string{"validate", "../../examples/quickstart.hcl", "-var", "scales=xs"}, exitUsage, nil,
			[]string{"Variables not allowed", `'scales=["xs"]'`}, false},
		{"a bare list in -var, its own words", []string{"validate", "../../examples/quickstart.hcl", "-var", "backends=duckdb"}, exitUsage, nil,
			[]string{"Variables not allowed", `'backends=["duckdb"]'`}, false},
		{"a bare list of two in -var", []string{"validate", "../../examples/quickstart.hcl", "-var", "backends=duckdb,sqlite"}, exitUsage, nil,
			[]string{`'backends=["duckdb","sqlite"]'`}, false},
		{"a directory of separate specs", []string{"validate", "../../examples/"}, exitUsage, nil,
			[]string{"Duplicate", "mentat-spec validate -each ../../examples/"}, false},
		{"each spec of a directory", []string{"validate", "-each", "../../examples/"}, exitOK,
			[]string{"../../examples/quickstart.hcl: valid", "../../examples/open-loop.hcl: valid"}, nil, false},
		{"version as JSON", []string{"version", "-json"}, exitOK, []string{`"version"`, `"revision"`}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tc.args, &stdout, &stderr); got != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, tc.code, stdout.String(), stderr.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if tc.jsonStdout && !json.Valid(stdout.Bytes()) {
				t.Errorf("stdout is not JSON:\n%s", stdout.String())
			}
		})
	}
}
