package resolve

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
)

// pairedAlone warns at each `order = "paired"` when the run selects one
// backend: pairing alternates a point's reps across the backends of a
// scale, so with one there is nothing to pair and the reps interleave as
// with "interleaved". A warning, not an error: the same spec pairs when
// -var selects two backends, and a single-backend run of it is legal;
// but a user asking for pairing is told it does not happen.
func pairedAlone(s *config.Spec) hcl.Diagnostics {
	if s.Matrix == nil || len(s.Matrix.BackendNames) != 1 {
		return nil
	}
	var diags hcl.Diagnostics
	warn := func(body hcl.Body, where string) {
		if body == nil {
			return
		}
		attrs, _ := body.JustAttributes()
		a, ok := attrs["order"]
		if !ok {
			return
		}
		v, d := a.Expr.Value(s.TopContext())
		if d.HasErrors() || !v.IsKnown() || v.IsNull() || v.Type().FriendlyName() != "string" || v.AsString() != config.OrderPaired {
			return
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Nothing to pair",
			Detail: fmt.Sprintf(`order = "paired" alternates %s reps across the backends of a scale, and this run selects one backend (%s): its reps interleave as with "interleaved". Select two or more backends (matrix.backends) to pair them.`,
				where, strings.Join(s.Matrix.BackendNames, ", ")),
			Subject: a.Expr.Range().Ptr()})
	}
	if s.Sampling != nil {
		warn(s.Sampling.Body, "each point's")
	}
	for _, sc := range s.SelectedScenarios() {
		warn(sc.SamplingB, fmt.Sprintf("scenario %q's", sc.Name))
	}
	return diags
}
