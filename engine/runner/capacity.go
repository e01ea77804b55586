package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// storeCost is what one datom costs a loaded store, measured with the
// mentat workload at scale s (991,248 datoms, BENCHMARKS.md "loads.csv"):
// bytes on disk, and seconds of bulk load plus after_load.
type storeCost struct {
	bytes   float64
	seconds float64
}

var storeCosts = map[string]storeCost{
	"sqlite":   {bytes: 188, seconds: 12.3e-6}, // 178 MiB; 0.95 s + 11.2 s
	"duckdb":   {bytes: 78, seconds: 4.7e-6},   // 74 MiB; 0.77 s + 3.9 s
	"postgres": {bytes: 287, seconds: 8.6e-6},  // 271 MiB; 1.48 + 6.4 + 0.6 + 0.12 s
}

// fileDrivers keep their store in a file under the data directory, whose
// free space is checked.
var fileDrivers = map[string]string{"sqlite": ".sqlite", "duckdb": ".duckdb"}

// estimate is the predicted store size and load time of one cell.
type estimate struct {
	bytes int64
	load  time.Duration
}

func cellEstimate(pc *plan.Cell) (estimate, bool) {
	c, ok := storeCosts[pc.Backend.Driver]
	if !ok {
		return estimate{}, false
	}
	n := float64(pc.Scale.Stats.Datoms)
	return estimate{bytes: int64(n * c.bytes), load: time.Duration(n * c.seconds * float64(time.Second))}, true
}

// storeFile is where a file backend's store goes, as its driver resolves it.
func (r *run) storeFile(pc *plan.Cell) string {
	if p := pc.Backend.Options["path"]; p != "" {
		if !filepath.IsAbs(p) && r.opts.DataDir != "" {
			p = filepath.Join(r.opts.DataDir, p)
		}
		return p
	}
	return filepath.Join(r.opts.DataDir, pc.Backend.Name+"-"+pc.Scale.Name+fileDrivers[pc.Backend.Driver])
}

// admit says, before the truth of a scale is computed, what each cell
// would load, and refuses (with the estimate) the cells whose store would
// not fit the free disk of its directory or the declared limit. It returns
// the cells that may run.
func (r *run) admit(sp *plan.ScalePlan) []*plan.Cell {
	var ok []*plan.Cell
	for _, pc := range sp.Cells {
		est, known := cellEstimate(pc)
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
	if _, isFile := fileDrivers[pc.Backend.Driver]; !isFile {
		return nil
	}
	path := r.storeFile(pc)
	if _, err := os.Stat(path); err == nil {
		return nil // reused, refused or replaced: its space is taken already
	}
	free, err := freeBytes(existingDir(filepath.Dir(path)))
	if err != nil {
		return nil // unknown: let the load find out
	}
	if est.bytes > free {
		return fmt.Errorf("refusing to load: the store would take about %s (%s datoms, load about %s) and %s has %s free", humanBytes(est.bytes),
			plan.Thousands(pc.Scale.Stats.Datoms), est.load.Round(time.Second), filepath.Dir(path), humanBytes(free))
	}
	return nil
}

// existingDir is dir or its nearest existing parent.
func existingDir(dir string) string {
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

var errNoStatfs = errors.New("free space unknown on this system")

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
