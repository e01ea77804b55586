package resolve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
)

// TestListAndMapOptions: a list or map driver option (an adapter's
// command argv and env) reaches the driver as JSON; a dialect option
// picks the backend's dialect; a nested value is refused at its line.
func TestListAndMapOptions(t *testing.T) {
	tests := []struct {
		body        string
		wantOpts    map[string]string
		wantDialect string
		wantErr     string
	}{
		{`command = ["python3", "a b.py", 1]
  env = { X = "1", Y = true }
  dir = "/tmp"`, map[string]string{"command": `["python3","a b.py","1"]`, "env": `{"X":"1","Y":"true"}`, "dir": "/tmp"}, "adapter", ""},
		{`dialect = "sqlite"`, map[string]string{"dialect": "sqlite"}, "sqlite", ""},
		{`command = [["nested"]]`, nil, "", `Option "command": element 0: want a string, number or bool`},
		{`env = { X = ["a"] }`, nil, "", `Option "env": X: want a string, number or bool`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		path := filepath.Join(dir, "spec.hcl")
		src := "scale \"xs\" {}\nbackend \"b\" {\n  driver = \"adapter\"\n  " + tt.body + "\n}\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		c := config.Cell{Scale: spec.Scale("xs"), Backend: spec.Backend("b")}
		bc, diags := resolve.Backend(c.Backend, spec.CellContext(c, cty.NilVal), "adapter")
		if tt.wantErr != "" {
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.wantErr) || !strings.Contains(diags.Error(), "spec.hcl:4") {
				t.Errorf("%s: diags %v, want %q at line 4", tt.body, diags, tt.wantErr)
			}
			continue
		}
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tt.body, diags)
		}
		for k, v := range tt.wantOpts {
			if bc.Options[k] != v {
				t.Errorf("%s: option %s = %q, want %q", tt.body, k, bc.Options[k], v)
			}
		}
		if bc.Dialect != tt.wantDialect {
			t.Errorf("%s: dialect %q, want %q", tt.body, bc.Dialect, tt.wantDialect)
		}
	}
}
