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

// specWith loads the resolve test spec with extra blocks appended.
func specWith(t *testing.T, extra string) (*config.Spec, error) {
	t.Helper()
	base, err := os.ReadFile(filepath.Join("testdata", "resolve", "spec.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spec.hcl")
	if err := os.WriteFile(path, append(base, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		return nil, diags
	}
	return spec, nil
}

func TestLoadStatementResolve(t *testing.T) {
	for _, tc := range []struct {
		name, load string
		want       resolve.Load
		err        string
	}{
		{name: "defaults", load: `statement = "SELECT edn_t(:tx)"`,
			want: resolve.Load{Declared: true, Jobs: 1, BatchRows: 10000, Statement: "SELECT edn_t(:tx)", Format: "edn", BatchDatoms: 5000, IDs: "entity", Tables: nil}},
		{name: "all set", load: "statement = \"SELECT load_tx(:tx)\"\nformat = \"json\"\nbatch_datoms = 100\nids = \"tempid\"\njobs = 2",
			want: resolve.Load{Declared: true, Jobs: 2, BatchRows: 10000, Statement: "SELECT load_tx(:tx)", Format: "json", BatchDatoms: 100, IDs: "tempid"}},
		{name: "neither tables nor statement", load: `jobs = 2`, err: "needs tables"},
		{name: "format without statement", load: "tables = { attrs = \"a\", text = \"t\", int = \"i\", real = \"r\" }\nformat = \"json\"", err: "format belongs to a load through a statement"},
		{name: "bad format", load: "statement = \"SELECT f(:tx)\"\nformat = \"xml\"", err: `format = "xml"`},
		{name: "bad ids", load: "statement = \"SELECT f(:tx)\"\nids = \"uuid\"", err: `ids = "uuid"`},
		{name: "other parameter", load: `statement = "SELECT f(:tx, :e)"`, err: "it uses :tx, :e"},
		{name: "no parameter", load: `statement = "SELECT 1"`, err: "it uses none"},
		{name: "batch_rows with statement", load: "statement = \"SELECT f(:tx)\"\nbatch_rows = 10", err: "sized by batch_datoms"},
		{name: "batch_datoms zero", load: "statement = \"SELECT f(:tx)\"\nbatch_datoms = 0", err: "batch_datoms must be between 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := specWith(t, "\nbackend \"st\" {\n  driver = \"sqlite\"\n  load {\n"+tc.load+"\n  }\n}\n")
			if err != nil {
				t.Fatal(err)
			}
			bc, diags := resolve.Backend(spec.Backend("st"), spec.CellContext(cell(t, spec, "xs", "st"), cty.NilVal), "sqlite")
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
					t.Fatalf("diagnostics %v, want one containing %q", diags, tc.err)
				}
				if !strings.Contains(diags.Error(), "spec.hcl:") {
					t.Errorf("diagnostic without a position: %v", diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got := bc.Load
			if got.Statement != tc.want.Statement || got.Format != tc.want.Format || got.BatchDatoms != tc.want.BatchDatoms ||
				got.IDs != tc.want.IDs || got.Jobs != tc.want.Jobs || !got.Declared {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestQueryAnswerResolve(t *testing.T) {
	for _, tc := range []struct {
		name, body  string
		answer, err string
		columns     []string
	}{
		{name: "default rows", body: `sql = "SELECT 1"`, answer: "rows"},
		{name: "json", body: "sql = \"SELECT json_group_array(x) FROM t\"\nanswer = \"json\"\ncolumns = [\"x\"]", answer: "json", columns: []string{"x"}},
		{name: "edn", body: "sql = \"SELECT 1\"\nanswer = \"edn\"", answer: "edn"},
		{name: "unknown", body: "sql = \"SELECT 1\"\nanswer = \"xml\"", err: `answer = "xml"`},
		{name: "columns without one value", body: "sql = \"SELECT 1\"\ncolumns = [\"x\"]", err: "columns names the positions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := specWith(t, "\nquery \"ans\" {\n"+tc.body+"\n}\n")
			if err != nil {
				t.Fatal(err)
			}
			var qb *config.QueryBlock
			for _, q := range spec.Queries {
				if q.Name == "ans" {
					qb = q
				}
			}
			rq, diags := resolve.Query(qb, spec.CellContext(cell(t, spec, "xs", "lite"), cty.NilVal), "sqlite")
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
					t.Fatalf("diagnostics %v, want one containing %q", diags, tc.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if rq.Answer != tc.answer || strings.Join(rq.Columns, ",") != strings.Join(tc.columns, ",") {
				t.Errorf("answer %q columns %v, want %q %v", rq.Answer, rq.Columns, tc.answer, tc.columns)
			}
		})
	}
}
