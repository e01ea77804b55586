package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fmt rewrites a messy file to the canonical layout, -check and -diff
// report it without writing, and a formatted file is left alone.
func TestFmt(t *testing.T) {
	dir := t.TempDir()
	messy, err := os.ReadFile(filepath.Join("testdata", "fmt", "messy.hcl.txt"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join("testdata", "fmt", "formatted.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	path, goodPath := filepath.Join(dir, "sub", "messy.hcl"), filepath.Join(dir, "good.hcl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, b := range map[string][]byte{path: messy, goodPath: good} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runT(t, "fmt", "-check", dir)
	if code != exitCheck || strings.TrimSpace(stdout) != path || !strings.Contains(stderr, "1 file(s) not formatted") {
		t.Errorf("fmt -check: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runT(t, "fmt", "-check", "-diff", path)
	for _, want := range []string{"--- " + path, "@@ -1,", "-users=20", "+  users  = 20", "+  issues = 100", "-  path=\"x.db\"", "+    path = \"x.db\""} {
		if !strings.Contains(stdout, want) {
			t.Errorf("fmt -diff lacks %q:\n%s", want, stdout)
		}
	}
	if code != exitCheck {
		t.Errorf("fmt -check -diff: exit %d", code)
	}
	if b, _ := os.ReadFile(path); string(b) != string(messy) {
		t.Fatal("fmt -check changed the file")
	}
	code, stdout, stderr = runT(t, "fmt", dir)
	if code != exitOK || strings.TrimSpace(stdout) != path {
		t.Errorf("fmt: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, _ := os.ReadFile(path)
	want := "scale \"xs\" {\n  users  = 20\n  issues = 100\n}\n\nbackend \"sqlite\" {\n  driver = \"sqlite\"\n  options {\n    path = \"x.db\"\n  }\n}\n"
	if string(got) != want {
		t.Errorf("formatted:\n%s\nwant:\n%s", got, want)
	}
	if code, stdout, _ := runT(t, "fmt", "-check", dir); code != exitOK || stdout != "" {
		t.Errorf("fmt -check after fmt: exit %d, stdout %q", code, stdout)
	}

	broken := filepath.Join(dir, "broken.hcl")
	if err := os.WriteFile(broken, []byte("scale \"xs\" {\n  users = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runT(t, "fmt", broken); code != exitUsage || !strings.Contains(stderr, "broken.hcl:") {
		t.Errorf("fmt of a file that does not parse: exit %d\n%s", code, stderr)
	}
}

// Every .hcl file of the repository is formatted.
func TestRepositoryFormatted(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../examples", "../../specs", "../../engine/runner/testdata"} {
		fs, err := hclFiles([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatal("no .hcl files found")
	}
	code, stdout, stderr := runT(t, append([]string{"fmt", "-check"}, files...)...)
	if code != exitOK {
		t.Errorf("mentat-spec fmt -check: exit %d; run mentat-spec fmt on:\n%s%s", code, stdout, stderr)
	}
}

func TestValidateJSON(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		code  int
		valid bool
		want  []string // summaries or details that must appear
	}{
		{"valid", []string{"validate", "-json", filepath.Join("testdata", "valid.hcl")}, exitOK, true, nil},
		{"invalid", []string{"validate", "-json", filepath.Join("testdata", "invalid.hcl")}, exitUsage, false, nil},
		{"unknown function", []string{"validate", "-json", filepath.Join("testdata", "unknown_function.hcl")}, exitUsage, false,
			[]string{"Call to unknown function", `Did you mean \"epoch_ms\"?`}},
		{"unknown function near none", []string{"validate", "-json", filepath.Join("testdata", "far_function.hcl")}, exitUsage, false,
			[]string{"Call to unknown function", "Available functions: ", "seq"}},
		{"plan of a valid spec", []string{"plan", "-json", filepath.Join("testdata", "valid.hcl")}, exitOK, true, nil},
		{"plan of an invalid spec", []string{"plan", "-json", filepath.Join("testdata", "invalid.hcl")}, exitUsage, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runT(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			var res JSONResult
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if res.Valid != tt.valid || (res.ErrorCount == 0) != tt.valid || res.ErrorCount+res.WarningCount != len(res.Diagnostics) {
				t.Errorf("valid %v, %d errors, %d warnings, %d diagnostics", res.Valid, res.ErrorCount, res.WarningCount, len(res.Diagnostics))
			}
			for _, d := range res.Diagnostics {
				if d.Severity != "error" && d.Severity != "warning" || d.Summary == "" {
					t.Errorf("diagnostic %+v", d)
				}
				if d.Severity == "error" && (d.File == "" || d.Line < 1 || d.Column < 1) {
					t.Errorf("error without a place: %+v", d)
				}
			}
			text := stdout
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			if strings.HasPrefix(tt.args[0], "plan") && tt.valid && !strings.Contains(stdout, `"cells": [`) {
				t.Error("plan -json without the plan")
			}
		})
	}
}

func TestNoColor(t *testing.T) {
	for _, args := range [][]string{
		{"-no-color", "validate", filepath.Join("testdata", "invalid.hcl")},
		{"validate", filepath.Join("testdata", "invalid.hcl"), "--no-color"},
		{"validate", filepath.Join("testdata", "invalid.hcl")}, // not a terminal: no color either
	} {
		code, _, stderr := runT(t, args...)
		if code != exitUsage || strings.Contains(stderr, "\x1b[") || !strings.Contains(stderr, "error(s):") {
			t.Errorf("%v: exit %d, stderr:\n%q", args, code, stderr)
		}
	}
	if got, off := stripNoColor([]string{"apply", "x.hcl", "-no-color", "--", "-no-color"}); !off || strings.Join(got, " ") != "apply x.hcl -- -no-color" {
		t.Errorf("stripNoColor: %v %v", got, off)
	}
}

// apply stops before creating the results directory when a PostgreSQL
// backend has no DSN, and says which variable to set.
func TestApplyWithoutDSN(t *testing.T) {
	t.Setenv("MENTAT_SPEC_PG_DSN", "")
	dir := filepath.Join(t.TempDir(), "results")
	code, stdout, stderr := runT(t, "apply", quickstart, "-q", "-o", dir, "-var", `backends=["postgres"]`)
	if code != exitUsage {
		t.Errorf("exit %d, want %d\n%s%s", code, exitUsage, stdout, stderr)
	}
	for _, want := range []string{"pg_dsn", "MENTAT_SPEC_PG_DSN"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("apply created %s: %v", dir, err)
	}
}
