package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
)

// specSHA is env.txt's spec_sha256 of the spec at path.
func specSHA(t *testing.T, path string) string {
	t.Helper()
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, kv := range p.Env {
		if kv.Key == "spec_sha256" {
			return kv.Value
		}
	}
	t.Fatal("no spec_sha256 in the plan's env lines")
	return ""
}

// The spec's hash is what compare uses to tell specs apart: the same
// files must hash the same whichever working directory the run starts in
// and however the path is spelled, and a changed file must not.
func TestSpecHashIsTheSameFromAnyDirectory(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := specSHA(t, filepath.Join(root, "examples", "quickstart.hcl"))

	// A copy of the quickstart elsewhere, next to a link to specs/ so its
	// includes resolve: the same files by their paths from the spec.
	copyDir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "specs"), filepath.Join(copyDir, "specs")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "examples", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(text string) string {
		p := filepath.Join(copyDir, "examples", "quickstart.hcl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	for _, tc := range []struct {
		name, cwd, path string
	}{
		{"from the repository", root, "examples/quickstart.hcl"},
		{"dot slash", root, "./examples/quickstart.hcl"},
		{"from examples", filepath.Join(root, "examples"), "quickstart.hcl"},
		{"from specs", filepath.Join(root, "specs"), "../examples/quickstart.hcl"},
		{"from elsewhere, absolute", t.TempDir(), filepath.Join(root, "examples", "quickstart.hcl")},
		{"a copy in another directory", copyDir, write(string(src))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.cwd)
			if got := specSHA(t, tc.path); got != want {
				t.Errorf("spec_sha256 %s, want %s (as from %s)", got, want, root)
			}
		})
	}

	changed := strings.Replace(string(src), "min_n   = 30", "min_n   = 31", 1)
	if changed == string(src) {
		t.Fatal("quickstart.hcl no longer sets min_n = 30")
	}
	if got := specSHA(t, write(changed)); got == want {
		t.Error("a changed file hashes as the original")
	}
	// The same content under another name is another spec too.
	moved := filepath.Join(copyDir, "examples", "other.hcl")
	if err := os.Rename(write(string(src)), moved); err != nil {
		t.Fatal(err)
	}
	if got := specSHA(t, moved); got == want {
		t.Error("a renamed file hashes as the original")
	}
}
