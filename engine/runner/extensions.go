package runner

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// driverConfig is what the driver opens pc's store with: the same for the
// run's own backend and every worker process's, so each session the
// engine opens has the backend's extensions and session setup.
func driverConfig(pc *plan.Cell, dataDir string, options map[string]string) drivers.Config {
	bc := pc.Backend
	return drivers.Config{Backend: bc.Name, Scale: pc.Scale.Name, DataDir: dataDir, Options: options, Settings: bc.Settings,
		Extensions: bc.Extensions, AllowUnsignedExtensions: bc.AllowUnsignedExtensions, SessionSetup: bc.SessionSetup}
}

// checkExtensions asks the driver of every cell with extensions whether
// they load, before any store is opened: a missing file or a wrong entry
// point stops the run before anything is loaded. It reports whether all
// of them do.
func (r *run) checkExtensions(ctx context.Context) bool {
	ok := true
	seen := map[string]bool{}
	for _, sp := range r.plan.Scales {
		for _, pc := range sp.Cells {
			bc := pc.Backend
			if len(bc.Extensions) == 0 || seen[bc.Name] {
				continue
			}
			seen[bc.Name] = true
			ec, is := r.driver(pc).(drivers.ExtensionChecker)
			if !is {
				continue
			}
			if err := ec.CheckExtensions(ctx, driverConfig(pc, r.opts.DataDir, bc.Options)); err != nil {
				r.fail("%v; the run stops before loading anything", err)
				ok = false
			}
		}
	}
	return ok
}

// extensionFacts are the env.txt lines of the extensions in force.
func (c *cell) extensionFacts(ctx context.Context, prefix string) []results.KV {
	er, ok := c.be.(drivers.ExtensionReporter)
	if !ok || len(c.pc.Backend.Extensions) == 0 {
		return nil
	}
	facts, err := er.ExtensionFacts(ctx)
	kv := make([]results.KV, 0, len(facts)+1)
	if err != nil {
		kv = append(kv, results.KV{Key: prefix + "extensions_error", Value: err.Error()})
	}
	for _, f := range facts {
		kv = append(kv, results.KV{Key: prefix + f.Key, Value: f.Value})
	}
	return kv
}
