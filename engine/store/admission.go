package store

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Estimate is the predicted store size and load time of one cell.
type Estimate struct {
	Bytes int64
	Load  time.Duration
}

// EstimateCell is what the cell's store will take, from its driver's
// per-datom costs (drivers.StoreEstimator); false when it has none.
func EstimateCell(d drivers.Driver, pc *plan.Cell) (Estimate, bool) {
	se, ok := d.(drivers.StoreEstimator)
	if !ok {
		return Estimate{}, false
	}
	c := se.StoreCost()
	n := float64(pc.Scale.Stats.Datoms)
	return Estimate{Bytes: int64(n * c.BytesPerDatom), Load: time.Duration(n * c.SecondsPerDatom * float64(time.Second))}, true
}

// File is the file a cell's store lives in under dataDir, as its driver
// resolves it (drivers.StoreLocator); false for a store that is not a
// file.
func File(d drivers.Driver, pc *plan.Cell, dataDir string) (string, bool) {
	sl, ok := d.(drivers.StoreLocator)
	if !ok {
		return "", false
	}
	bc := pc.Backend
	path, err := sl.StorePath(drivers.Config{Backend: bc.Name, Scale: pc.Scale.Name, DataDir: dataDir, Options: bc.Options, Settings: bc.Settings})
	if err != nil {
		return "", false // Open says why
	}
	return path, true
}

// Fits refuses, with the estimate, a store that would not fit maxBytes
// (0: no limit) or the free disk of the directory its file goes in. A
// store whose file exists already takes its space already; free space
// that cannot be read lets the load find out.
func Fits(d drivers.Driver, pc *plan.Cell, dataDir string, maxBytes int64, est Estimate) error {
	if maxBytes > 0 && est.Bytes > maxBytes {
		return fmt.Errorf("refusing to load: the store would take about %s (%s datoms), over the limit of %s", results.HumanBytes(est.Bytes), plan.Thousands(pc.Scale.Stats.Datoms), results.HumanBytes(maxBytes))
	}
	path, isFile := File(d, pc, dataDir)
	if !isFile {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil // reused, refused or replaced: its space is taken already
	}
	free, err := host.FreeBytes(host.ExistingDir(filepath.Dir(path)))
	if err != nil {
		return nil
	}
	if est.Bytes > free {
		return fmt.Errorf("refusing to load: the store would take about %s (%s datoms, load about %s) and %s has %s free", results.HumanBytes(est.Bytes),
			plan.Thousands(pc.Scale.Stats.Datoms), est.Load.Round(time.Second), filepath.Dir(path), results.HumanBytes(free))
	}
	return nil
}

// Full words a full disk under a file store: which directory, how much is
// free, and what the next run does with the store. Other errors, and
// stores that are not files, are returned as they are.
func Full(d drivers.Driver, pc *plan.Cell, dataDir string, err error) error {
	path, isFile := File(d, pc, dataDir)
	if !isFile || !(host.DiskFull(err) || drivers.ClassifyError(d, err) == drivers.ErrorDiskFull) {
		return err
	}
	dir := filepath.Dir(path)
	free := "unknown"
	if n, ferr := host.FreeBytes(host.ExistingDir(dir)); ferr == nil {
		free = results.HumanBytes(n)
	}
	return fmt.Errorf("the data directory %s is full (no space left on device, or a file size limit; %s free): "+
		"the half-loaded store is this tool's and the next run reloads it: %w", dir, free, err)
}
