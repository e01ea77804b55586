package runner

import (
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

// driver is the cell's driver, nil when the registry has none.
func (r *run) driver(pc *plan.Cell) drivers.Driver {
	if r.opts.Registry == nil {
		return nil
	}
	d, _ := r.opts.Registry.Lookup(pc.Backend.Driver)
	return d
}

// admit says, before the truth of a scale is computed, what each cell
// would load, and refuses (with the estimate) the cells whose store would
// not fit the free disk of its directory or the declared limit. It returns
// the cells that may run.
func (r *run) admit(sp *plan.ScalePlan) []*plan.Cell {
	var ok []*plan.Cell
	for _, pc := range sp.Cells {
		d := r.driver(pc)
		est, known := store.EstimateCell(d, pc)
		if !known || r.opts.Phase == PhaseBench || !pc.Backend.Load.Declared {
			ok = append(ok, pc)
			continue
		}
		r.logf("%s: store of about %s, load about %s (from measured per-datom costs)", pc.Name(), results.HumanBytes(est.Bytes), est.Load.Round(time.Second))
		if err := store.Fits(d, pc, r.opts.DataDir, r.opts.MaxStoreBytes, est); err != nil {
			r.fail("%s: %v", pc.Name(), err)
			continue
		}
		ok = append(ok, pc)
	}
	return ok
}
