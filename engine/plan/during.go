package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
)

// checkDuring refuses a check run during its scenario (during_ms) that
// is not an invariant: the truth moves with every commit, so what such a
// check expects must not read it; and the interval must be positive.
func checkDuring(sd *config.ScenarioBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, ck := range sd.Checks {
		a, ok := ck.Attrs["during_ms"]
		if !ok {
			continue
		}
		if refs := truthRefs(ck); len(refs) > 0 {
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

// duringMS is a check's during_ms, 0 when unset (checkDuring reported a
// bad one).
func duringMS(ck *config.CheckBlock, ctx *hcl.EvalContext) int64 {
	a, ok := ck.Attrs["during_ms"]
	if !ok {
		return 0
	}
	n, d := hcleval.Int(a.Expr, ctx, "during_ms")
	if d.HasErrors() || n < 0 {
		return 0
	}
	return n
}

// duringNote is what plan says of a check also run during its scenario.
func duringNote(ck *config.CheckBlock) string {
	a, ok := ck.Attrs["during_ms"]
	if !ok {
		return ""
	}
	if len(a.Expr.Variables()) > 0 {
		return ", also during the scenario"
	}
	n, d := hcleval.Int(a.Expr, nil, "during_ms")
	if d.HasErrors() {
		return ""
	}
	return fmt.Sprintf(", also every %d ms during the scenario", n)
}
