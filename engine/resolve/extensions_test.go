package resolve_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// A backend's extensions (paths, names, objects), session setup and
// explain statement; mistakes are diagnostics at the attribute's line.
func TestSessionAttributes(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "config", "testdata", "valid-files", "minimal.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, attrs string
		exts        []drivers.Extension
		setup       []string
		explain     string
		unsigned    bool
		err         string
	}{
		{"none", "", nil, nil, "", false, ""},
		{"path, name and object",
			`extensions = ["/usr/lib/sqlite3/pcre.so", "json", { path = "./x.so", entry_point = "sqlite3_x_init" }, { name = "pg_trgm", schema = "public", version = "1.6" }]`,
			[]drivers.Extension{{Path: "/usr/lib/sqlite3/pcre.so"}, {Name: "json"}, {Path: "./x.so", EntryPoint: "sqlite3_x_init"}, {Name: "pg_trgm", Schema: "public", Version: "1.6"}},
			nil, "", false, ""},
		{"setup, explain, unsigned",
			"session_setup = [\"SET a = 1\", \"SET b = 2\"]\n  explain = \"SELECT mentat_explain(:q)\"\n  allow_unsigned_extensions = true",
			nil, []string{"SET a = 1", "SET b = 2"}, "SELECT mentat_explain(:q)", true, ""},
		{"a map item", `extensions = [tomap({ path = "/a.so", entry_point = "a_init" })]`, []drivers.Extension{{Path: "/a.so", EntryPoint: "a_init"}}, nil, "", false, ""},
		{"null entry point", `extensions = [{ path = "/a.so", entry_point = null }]`, []drivers.Extension{{Path: "/a.so"}}, nil, "", false, ""},
		{"null item", `extensions = [null]`, nil, nil, "", false, "extensions[0] is null"},
		{"a list item", `extensions = [["/a.so"]]`, nil, nil, "", false, "extensions[0] is"},
		{"not a list", `extensions = "pcre.so"`, nil, nil, "", false, "extensions must be a list"},
		{"unknown key", `extensions = [{ path = "/a.so", entry = "x" }]`, nil, nil, "", false, `extensions[0]: unknown key "entry"`},
		{"neither", `extensions = [{ entry_point = "x" }]`, nil, nil, "", false, "names neither a path nor a name"},
		{"both", `extensions = [{ path = "/a.so", name = "a" }]`, nil, nil, "", false, "both a path and a name"},
		{"a number", `extensions = [3]`, nil, nil, "", false, "extensions[0] is number"},
		{"explain without :q", `explain = "SELECT mentat_explain(:query)"`, nil, nil, "", false, "must bind :q"},
		{"setup not a list", `session_setup = 3`, nil, nil, "", false, "session_setup"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "spec.hcl")
			text := string(base) + "\nbackend \"lite\" {\n  driver = \"sqlite\"\n  " + tc.attrs + "\n}\n"
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			bc, diags := resolve.Backend(spec.Backend("lite"), spec.CellContext(cell(t, spec, "xs", "lite"), cty.NilVal), "")
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
					t.Fatalf("diagnostics %v, want %q", diags, tc.err)
				}
				if d := diags[0]; d.Subject == nil || d.Subject.Filename != path || d.Subject.Start.Line < 2 {
					t.Fatalf("diagnostic without the attribute's place: %+v", d.Subject)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if !reflect.DeepEqual(bc.Extensions, tc.exts) || !reflect.DeepEqual(bc.SessionSetup, tc.setup) || bc.Explain != tc.explain || bc.AllowUnsignedExtensions != tc.unsigned {
				t.Fatalf("got %+v %q %q %v", bc.Extensions, bc.SessionSetup, bc.Explain, bc.AllowUnsignedExtensions)
			}
		})
	}
}
