package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// estimate is the predicted store size and load time of one cell.
type estimate struct {
	bytes int64
	load  time.Duration
}

// driver is the cell's driver, nil when the registry has none.
func (r *run) driver(pc *plan.Cell) drivers.Driver {
	if r.opts.Registry == nil {
		return nil
	}
	d, _ := r.opts.Registry.Lookup(pc.Backend.Driver)
	return d
}

// cellEstimate is what the cell's store will take, from its driver's
// per-datom costs (drivers.StoreEstimator); false when it has none.
func (r *run) cellEstimate(pc *plan.Cell) (estimate, bool) {
	se, ok := r.driver(pc).(drivers.StoreEstimator)
	if !ok {
		return estimate{}, false
	}
	c := se.StoreCost()
	n := float64(pc.Scale.Stats.Datoms)
	return estimate{bytes: int64(n * c.BytesPerDatom), load: time.Duration(n * c.SecondsPerDatom * float64(time.Second))}, true
}

// storeFile is the file a cell's store lives in, as its driver resolves
// it (drivers.StoreLocator); false for a store that is not a file.
func (r *run) storeFile(pc *plan.Cell) (string, bool) {
	sl, ok := r.driver(pc).(drivers.StoreLocator)
	if !ok {
		return "", false
	}
	bc := pc.Backend
	path, err := sl.StorePath(drivers.Config{Backend: bc.Name, Scale: pc.Scale.Name, DataDir: r.opts.DataDir, Options: bc.Options, Settings: bc.Settings})
	if err != nil {
		return "", false // Open says why
	}
	return path, true
}

// admit says, before the truth of a scale is computed, what each cell
// would load, and refuses (with the estimate) the cells whose store would
// not fit the free disk of its directory or the declared limit. It returns
// the cells that may run.
func (r *run) admit(sp *plan.ScalePlan) []*plan.Cell {
	var ok []*plan.Cell
	for _, pc := range sp.Cells {
		est, known := r.cellEstimate(pc)
		if !known || r.opts.Phase == PhaseBench || !pc.Backend.Load.Declared {
			ok = append(ok, pc)
			continue
		}
		r.logf("%s: store of about %s, load about %s (from measured per-datom costs)", pc.Name(), humanBytes(est.bytes), est.load.Round(time.Second))
		if err := r.fits(pc, est); err != nil {
			r.fail("%s: %v", pc.Name(), err)
			continue
		}
		ok = append(ok, pc)
	}
	return ok
}

func (r *run) fits(pc *plan.Cell, est estimate) error {
	if max := r.opts.MaxStoreBytes; max > 0 && est.bytes > max {
		return fmt.Errorf("refusing to load: the store would take about %s (%s datoms), over the limit of %s", humanBytes(est.bytes), plan.Thousands(pc.Scale.Stats.Datoms), humanBytes(max))
	}
	path, isFile := r.storeFile(pc)
	if !isFile {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil // reused, refused or replaced: its space is taken already
	}
	free, err := host.FreeBytes(host.ExistingDir(filepath.Dir(path)))
	if err != nil {
		return nil // unknown: let the load find out
	}
	if est.bytes > free {
		return fmt.Errorf("refusing to load: the store would take about %s (%s datoms, load about %s) and %s has %s free", humanBytes(est.bytes),
			plan.Thousands(pc.Scale.Stats.Datoms), est.load.Round(time.Second), filepath.Dir(path), humanBytes(free))
	}
	return nil
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
