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

// A backend's client model: goroutine by default, "threads" as its old
// name, one process per client, or N processes sharing the clients; the
// attribute is client_model, or clients, its older name.
func TestClientModels(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "config", "testdata", "valid-files", "minimal.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, attrs string
		model       string
		processes   int
		err         string
	}{
		{"default", "", resolve.ClientsGoroutine, 0, ""},
		{"goroutine", `clients = "goroutine"`, resolve.ClientsGoroutine, 0, ""},
		{"threads alias", `clients = "threads"`, resolve.ClientsGoroutine, 0, ""},
		{"process", `clients = "process"`, resolve.ClientsProcess, 0, ""},
		{"processes", `processes = 4`, resolve.ClientsProcesses, 4, ""},
		{"clients null", `clients = null`, resolve.ClientsGoroutine, 0, ""},
		{"processes null", "clients = \"process\"\n  processes = null", resolve.ClientsProcess, 0, ""},
		{"clients null, processes", "clients = null\n  processes = 3", resolve.ClientsProcesses, 3, ""},
		{"unknown", `clients = "fibers"`, "", 0, "Unsupported client model"},
		{"zero processes", `processes = 0`, "", 0, "Invalid processes"},
		{"both", "clients = \"process\"\n  processes = 2", "", 0, "Conflicting client models"},
		{"client_model goroutine", `client_model = "goroutine"`, resolve.ClientsGoroutine, 0, ""},
		{"client_model process", `client_model = "process"`, resolve.ClientsProcess, 0, ""},
		{"client_model null, clients", "client_model = null\n  clients = \"process\"", resolve.ClientsProcess, 0, ""},
		{"client_model unknown", `client_model = "fibers"`, "", 0, `client_model = "fibers": the models are`},
		{"client_model and processes", "client_model = \"process\"\n  processes = 2", "", 0, "Set either client_model (goroutine or process)"},
		{"client_model and clients", "client_model = \"process\"\n  clients = \"process\"", "", 0, "Set client_model or clients, its older name, not both."},
		{"clients unknown keeps its name", `clients = "fibers"`, "", 0, `clients = "fibers": the models are`},
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
				if d := diags[0]; d.Subject == nil || d.Subject.Start.Line < 10 {
					t.Errorf("the diagnostic must point at the attribute: %v", d.Subject)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if bc.ClientModel != tc.model || bc.Processes != tc.processes {
				t.Errorf("model %q processes %d, want %q %d", bc.ClientModel, bc.Processes, tc.model, tc.processes)
			}
		})
	}
}
