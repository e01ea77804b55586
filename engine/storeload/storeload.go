// Package storeload loads the dataset into a cell's store, one the
// engine created or emptied and marked as its own: the backend's setup,
// the bulk (or statement) load within the load ceiling, the after-load,
// analyze and vacuum statements timed one by one, then the load's row
// (loads.csv) and its log (logs/load-<scale>-<backend>.log). The store's
// meta table says loaded only once all of it is done.
package storeload

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/progress"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/store"
)

// Progress is the live view a load reports to.
type Progress interface {
	Begin(name, unit string, est time.Duration, total int64, count progress.Counter)
	End()
	Skip(est time.Duration)
}

// Cell is the cell whose store is loaded, and where the load reports.
type Cell struct {
	Name  string // the cell's, in logs
	Plan  *plan.Cell
	Store drivers.Backend
	Admin drivers.Session // the setup, after-load statements and meta
	Cap   time.Duration   // the load's ceiling (sampling load_max)

	Progress Progress
	Phase    func() // starts the load's phase in memory.csv
	Emit     func(results.Record)
	Logf     func(format string, args ...any)
	Log      func(name string) (io.WriteCloser, error) // a file of logs/
}

// Load loads the dataset into the store, whose meta table already says
// it is the engine's and not loaded. It reports whether scenarios can
// run: not when the load ceiling cut the load.
func (c Cell) Load(ctx context.Context) (bool, error) {
	bc := c.Plan.Backend
	if err := store.Exec(ctx, c.Admin, bc.Setup); err != nil {
		return false, fmt.Errorf("setup: %w", err)
	}
	bl, ok := c.Store.(drivers.BulkLoader)
	if !ok && bc.Load.Statement == "" {
		return false, fmt.Errorf("the backend declares a load block, but driver %q has no bulk loader", bc.Driver)
	}
	capDur := c.Cap
	c.Logf("%s: loading %s datoms (%d job(s))", c.Name, plan.Thousands(c.Plan.Scale.Stats.Datoms), bc.Load.Jobs)
	var loaded atomic.Int64
	c.Phase()
	datomsEst, afterEst := c.Plan.LoadSplit()
	c.Progress.Begin(c.Name+" load", "datoms", datomsEst, c.Plan.Scale.Stats.Datoms, func() (int64, int64) { return loaded.Load(), 0 })
	var res store.Result
	var err error
	if bc.Load.Statement != "" {
		res, err = store.StatementLoad(ctx, c.Store, c.Plan.Scale.Gen, bc.Load, capDur, &loaded)
	} else {
		res, err = store.BulkLoad(ctx, bl, c.Plan.Scale.Gen, bc.Load, capDur, &loaded)
	}
	c.Progress.End()
	var steps []store.Step
	var ran atomic.Int64 // after-load statements done, for the progress line
	defer func() { c.writeLog(res, steps) }()
	if err != nil || res.Capped {
		c.Progress.Skip(afterEst) // no after-load SQL follows: its estimate is done
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", store.LoadKind(bc.Load), err)
	}
	row := results.LoadRow{Backend: bc.Name, Scale: c.Plan.Scale.Name, NDatoms: c.Plan.Scale.Stats.Datoms,
		WallS: res.Elapsed.Seconds(), DatomsPerS: float64(res.Datoms) / res.Elapsed.Seconds(), Jobs: bc.Load.Jobs}
	if res.Capped {
		row.Ceiling = true
		row.NDatoms = res.Datoms
		if n, err := store.CountLoaded(ctx, c.Admin, res.Tables); err == nil {
			row.NDatoms = n // what the store holds, whatever the cut commit did
			row.DatomsPerS = float64(n) / res.Elapsed.Seconds()
		}
		c.Emit(row)
		c.Logf("%s: load cap of %s hit: scenarios skipped", c.Name, capDur)
		return false, nil
	}
	timed := func(texts []string, what string) (*float64, error) {
		if len(texts) == 0 {
			return nil, nil
		}
		t0 := time.Now()
		err := store.ExecTimed(ctx, c.Admin, texts, func(stmt string, took time.Duration) {
			steps = append(steps, store.Step{What: what, SQL: stmt, Took: took})
			ran.Add(1)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		s := time.Since(t0).Seconds()
		return &s, nil
	}
	// One progress task for the steps after the datoms: at l they are
	// most of the load, minutes with no datom to count.
	if n := store.CountStatements(bc.AfterLoad) + store.CountStatements(bc.Analyze) + store.CountStatements(bc.Vacuum); n > 0 {
		c.Progress.Begin(c.Name+" after-load SQL", "statements", afterEst, int64(n), func() (int64, int64) { return ran.Load(), 0 })
	}
	if row.PostLoadS, err = timed(bc.AfterLoad, "after_load"); err == nil {
		if row.AnalyzeS, err = timed(bc.Analyze, "analyze"); err == nil {
			row.VacuumS, err = timed(bc.Vacuum, "vacuum")
		}
	}
	c.Progress.End()
	if err != nil {
		return false, err
	}
	if sz, ok := c.Store.(drivers.Sizer); ok {
		if n, err := sz.Size(ctx); err == nil {
			row.SizeBytes = &n
		}
	}
	c.Emit(row)
	if err := store.WriteMeta(ctx, c.Admin, map[string]string{"loaded": "1", "loaded_at": time.Now().UTC().Format(time.RFC3339)}); err != nil {
		return false, err
	}
	return true, nil
}

// writeLog writes logs/load-<scale>-<backend>.log.
func (c Cell) writeLog(res store.Result, steps []store.Step) {
	w, err := c.Log(fmt.Sprintf("load-%s-%s", c.Plan.Scale.Name, c.Plan.Backend.Name))
	if err != nil {
		c.Logf("%s: load log: %v", c.Name, err)
		return
	}
	defer w.Close()
	store.WriteLog(w, c.Name, res, steps)
}
