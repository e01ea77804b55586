package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// A local may read scale.*: its value is each scale's, in datasets and
// everything per cell, and a local built on it follows.
func TestLocalsReadScale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hcl")
	src := `
scale "xs" {
  users = 10
}
scale "s" {
  users = 100
}
locals {
  half   = scale.users / 2
  double = local.half * 4
  big    = length(range(5000)) # beyond HCL's own 1,024 values
}
dataset "d" {
  seed    = 1
  tx_size = 10
  entity "user" {
    count = local.double + local.big - 5000
    attr "user/name" {
      type = "string"
      gen  = seq("u%d")
    }
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		scale string
		want  int64
	}{{"xs", 20}, {"s", 200}} {
		var sc *config.Scale
		for _, s := range spec.Scales {
			if s.Name == tc.scale {
				sc = s
			}
		}
		gen, d := resolve.Dataset(spec.Datasets[0], spec.ScaleContext(sc))
		if d.HasErrors() {
			t.Fatal(d)
		}
		if err := gen.Finish(); err != nil {
			t.Fatal(err)
		}
		if got := gen.Count("user"); got != tc.want {
			t.Errorf("scale %s: %d users, want %d", tc.scale, got, tc.want)
		}
	}
}

// A local that fails at one scale says which.
func TestLocalsReadScaleError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.hcl")
	src := `
scale "xs" {
  users = 10
}
scale "s" {
  users = "many"
}
locals {
  half = scale.users / 2
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `local.half at scale "s"`) {
		t.Fatalf("diagnostics %v: want the local and the scale named", diags)
	}
}
