package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
)

// duringMS is a check's during_ms, 0 when unset (checkDuring reported a
// bad one).
func duringMS(attrs hcl.Attributes, ctx *hcl.EvalContext) int64 {
	a, ok := attrs["during_ms"]
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
func duringNote(attrs hcl.Attributes) string {
	a, ok := attrs["during_ms"]
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
