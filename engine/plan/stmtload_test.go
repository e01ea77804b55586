package plan_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
)

// TestRenderStatementLoad: plan says a backend loads through a statement,
// in what format, batch size, ids and jobs, instead of the tables line.
func TestRenderStatementLoad(t *testing.T) {
	dir := t.TempDir()
	override := `backend "sqlite" {
  load {
    statement    = "SELECT edn_t(:tx)"
    batch_datoms = 4000
    jobs         = 2
  }
}
`
	p := filepath.Join(dir, "load_override.hcl")
	if err := os.WriteFile(p, []byte(override), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, _ := filepath.Abs(filepath.Join("..", "..", "examples", "quickstart.hcl"))
	got := string(render(t, []string{qs, p}, []config.VarArg{{Name: "backends", Value: `["sqlite"]`}}, 1))
	want := `    load: through the statement "SELECT edn_t(:tx)", edn tx-data, 4,000 datoms per batch, ids entity, 2 job(s); after load: 2 SQL text(s); estimated`
	if !strings.Contains(got, want) {
		t.Errorf("plan lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "rows per transaction") {
		t.Errorf("plan shows the bulk path's line for a statement load:\n%s", got)
	}
}
