package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// TestValidateCatchesWhatPlanCatches: for each mistake in the bank spec
// (engine/resolve/testdata/bank), every error plan reports, validate
// reports too, without a database: "The spec is valid." never precedes a
// plan that exits 2.
func TestValidateCatchesWhatPlanCatches(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "resolve", "testdata", "bank", "bank.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"valid as it stands", "", ""},
		{"unknown write generator", `write  = "deposit"`, `write  = "deposits"`},
		{"check on an unknowable truth", `expect_values = { n = truth.accounts }`, `expect_values = { n = truth.total_balance }`},
		{"unbound insert parameter", `:account_num`, `:account_numb`},
		{"unknown threshold op", `op       = "deposit"`, `op       = "deposits"`},
		{"write_mixed of an insert", "scenario \"bank\" {", "scenario \"mixed\" {\n  kind = \"write_mixed\"\n  duration_s = 1\n  write {\n    generator = \"open\"\n    query = query.deposit\n  }\n}\n\nscenario \"bank\" {"},
		{"immutable readers under writes", "path   = \"bank-${scale.name}.sqlite\"", "path   = \"bank-${scale.name}.sqlite\"\n  readers = \"immutable\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(string(src), tc.old, tc.new, 1)
			path := filepath.Join(t.TempDir(), "bank.hcl")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			drv := plan.Drivers(drivers.Default)
			vdiags := resolve.Validate(spec, drv)
			_, pdiags := planbuild.Build(context.Background(), spec, drv, 1)
			if tc.old != "" && !pdiags.HasErrors() && !vdiags.HasErrors() {
				t.Fatal("neither validate nor plan refused the mistake")
			}
			for _, pd := range pdiags {
				if pd.Severity == hcl.DiagError && !hasSummary(vdiags, pd.Summary) {
					t.Errorf("plan reports %q (%s), validate does not:\n%s", pd.Summary, pd.Detail, vdiags.Error())
				}
			}
		})
	}
}

func hasSummary(diags hcl.Diagnostics, summary string) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary == summary {
			return true
		}
	}
	return false
}
