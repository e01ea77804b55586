package plan

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
)

// checkTxReads refuses a write operation whose transaction reads read.*
// (its abort_if or a delta) with no read query to read it from.
func checkTxReads(sp *ScalePlan, sd *config.ScenarioBlock) hcl.Diagnostics {
	od, ok := sd.Def.(Operationer)
	if !ok || sp.Writes == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, o := range od.Operations() {
		if o.Write == "" || o.Read != "" {
			continue
		}
		decl, ok := sp.Writes.Decl(o.Write)
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
