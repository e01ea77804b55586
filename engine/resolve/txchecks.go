package resolve

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// DuringChecks refuses a check run during its scenario (during_ms) that
// is not an invariant: the truth moves with every commit, so what such a
// check expects must not read it; and the interval must be positive.
// Validate and plan both run it.
func DuringChecks(sd *config.ScenarioBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, ck := range sd.Checks {
		a, ok := ck.Attrs["during_ms"]
		if !ok {
			continue
		}
		if refs := TruthRefs(ck); len(refs) > 0 {
			diags = append(diags, hcleval.AttrError(a.Expr, "Check cannot run during the scenario",
				fmt.Sprintf("Check %q reads truth.%s, which moves with every commit: a check run during the scenario (during_ms) is an invariant, whose expectations are constants.", ck.Name, refs[0])))
			continue
		}
		if len(a.Expr.Variables()) > 0 {
			continue // known per cell: a bad value leaves the check after the scenario only
		}
		n, d := hcleval.Int(a.Expr, nil, "during_ms")
		diags = append(diags, d...)
		if !d.HasErrors() && n <= 0 {
			diags = append(diags, hcleval.AttrError(a.Expr, "Invalid during_ms", "during_ms is the interval in milliseconds between the check's runs during the scenario: a positive whole number."))
		}
	}
	return diags
}

// TxReads refuses a write operation whose transaction reads read.* (its
// abort_if or a delta) with no read query to read it from. Validate and
// plan both run it.
func TxReads(w *writes.Writes, sd *config.ScenarioBlock) hcl.Diagnostics {
	od, ok := sd.Def.(kind.Operationer)
	if !ok || w == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, o := range od.Operations() {
		if o.Write == "" || o.Read != "" {
			continue
		}
		decl, ok := w.Decl(o.Write)
		if !ok {
			continue
		}
		if why := writes.ReadNeed(decl); why != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Transaction needs a read",
				Detail:  fmt.Sprintf("Scenario %q, operation %q: %s, and the operation has no read query: set read = query.NAME.", sd.Name, o.Name, why),
				Subject: sd.DeclRange.Ptr()})
		}
	}
	return diags
}
