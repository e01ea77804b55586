package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

// A matrix list set from a variable left at null selects everything, so a
// spec's `scenarios` variable can default to "all" without naming them.
func TestMatrixNullSelectsAll(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "valid-files", "minimal.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(base) + `
variable "scales" {
  type    = list(string)
  default = null
}
matrix {
  scales = var.scales
}
scale "s" {
  users = 20
}
`
	path := filepath.Join(t.TempDir(), "spec.hcl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		vars []config.VarArg
		want []string
	}{
		{nil, []string{"xs", "s"}},
		{[]config.VarArg{{Name: "scales", Value: `["s"]`}}, []string{"s"}},
	} {
		spec, diags := config.Load([]string{path}, config.Options{Env: []string{}, Vars: tc.vars})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if !slices.Equal(spec.Matrix.ScaleNames, tc.want) {
			t.Errorf("vars %v: scales %v, want %v", tc.vars, spec.Matrix.ScaleNames, tc.want)
		}
	}
}
