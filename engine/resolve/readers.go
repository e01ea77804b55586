package resolve

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
)

// ReadersSeeWrites refuses a scenario that writes on a backend whose
// reader sessions cannot see writes (drivers.ReadOnlyReaders). Validate
// and plan both run it.
func ReadersSeeWrites(drv Drivers, driver, backend string, opts map[string]string, sd *config.ScenarioBlock) hcl.Diagnostics {
	if sd.Def == nil || !sd.Def.Writes() {
		return nil
	}
	d, ok := drv.Driver(driver)
	if !ok {
		return nil
	}
	rr, ok := d.(drivers.ReadOnlyReaders)
	if !ok {
		return nil
	}
	why, refuse := rr.ReadersRefuseWrites(opts)
	if !refuse {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Scenario writes on a read-only backend",
		Detail:  fmt.Sprintf("Scenario %q writes to the store, and backend %q cannot run it: %s. Run it on another backend, or skip it there (skip_scenarios).", sd.Name, backend, why),
		Subject: sd.DeclRange.Ptr()}}
}
