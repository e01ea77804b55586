package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
	"github.com/mentat-spec/mentat-spec/engine/explain"
	"github.com/mentat-spec/mentat-spec/engine/gather"
	"github.com/mentat-spec/mentat-spec/engine/ops"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/mentat-spec/mentat-spec/engine/store"
	"github.com/mentat-spec/mentat-spec/engine/storeload"
)

// cell runs one (scale, backend) cell of the plan.
type cell struct {
	run   *run
	pc    *plan.Cell
	truth *plan.Truth
	// abortLogged names the scenarios a threshold's abort ended, logged.
	abortLogged map[string]bool
	measured    bool // a scenario ran: the thresholds judge the cell

	drv     drivers.Driver
	cfg     drivers.Config
	be      drivers.Backend
	admin   drivers.Session
	queries map[string]*boundQuery
	broken  error // set when the store can no longer be reached
	written bool  // a scenario changed the store's data in this run

	// The writes committed to the store in this run (writes.go), and the
	// truth before them; truthAlt is the truth had a write in doubt
	// committed, doubt says which.
	writes committedWrites
	locker drivers.StoreLocker // the store's lock, held for the cell
	lock   storelock.Lock
	seqMu  sync.Mutex
	seqs   map[string]*ops.Seq // write operations' numbering, per generator
	// closeCell closes what open opened (paired cells stay open together).
	closeCell func()
	baseTruth *plan.Truth
	truthAlt  *plan.Truth
	doubt     string

	ev *gather.Cell // what the database says around its points (gatherer)
}

// boundQuery is a query with its markers bound for the backend.
type boundQuery struct {
	name   string
	bound  sqltext.Bound
	params map[string]params.Spec
	binder *params.Binder // nil when a parameter is left to the checks
}

func (c *cell) name() string { return c.pc.Name() }

// phase starts one of the cell's phases in memory.csv.
func (c *cell) phase(name string) { c.run.mem.Phase(c.pc.Scale.Name, c.pc.Backend.Name, name) }

func (c *cell) execute(ctx context.Context) error {
	closeCell, ready, err := c.open(ctx)
	defer closeCell()
	defer c.run.mem.End()
	if err != nil || !ready {
		return err
	}
	return c.runGroups(ctx, c.groups())
}

// runGroups runs the cell's groups in order, each measured then checked.
func (c *cell) runGroups(ctx context.Context, groups [][]*plan.Scenario) error {
	for _, g := range groups {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		c.phase(results.PhaseMeasure)
		c.measureGroup(ctx, g, c.runGroup)
		c.phase(results.PhaseChecks)
		if err := c.afterGroup(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// open takes the cell's store: its lock, the backend, the admin session,
// the store loaded (or reused), and what the results record of it before
// any point (env lines, size, plans); ready is false, with no error, when
// the store is left as it is. The returned func closes what was opened,
// also after an error.
func (c *cell) open(ctx context.Context) (closeAll func(), ready bool, err error) {
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	bc := c.pc.Backend
	drv, ok := c.run.opts.Registry.Lookup(bc.Driver)
	if !ok {
		return closeAll, false, fmt.Errorf("no driver %q", bc.Driver)
	}
	cfg := driverConfig(c.pc, c.run.opts.DataDir, bc.Options)
	if bc.Load.Declared {
		cfg.Init = store.MetaInit() // a store killed right after its creation is still ours
	}
	c.drv, c.cfg = drv, cfg
	if sl, ok := drv.(drivers.StoreLocker); ok {
		// Before Open, which may create or drop: one run at a time
		// loads, measures or writes a store.
		lock, err := sl.LockStore(ctx, cfg, lockWait(c.run.opts))
		if err != nil {
			return closeAll, false, err
		}
		c.locker, c.lock = sl, lock
		closers = append(closers, func() { c.lock.Release() })
	}
	be, err := drv.Open(ctx, cfg)
	if err != nil {
		return closeAll, false, fmt.Errorf("opening the store: %w", err)
	}
	c.be = be
	closers = append(closers, func() {
		if c.be != nil {
			c.be.Close()
		}
	})
	if c.admin, err = c.be.Session(ctx); err != nil {
		return closeAll, false, fmt.Errorf("connecting: %w", err)
	}
	closers = append(closers, func() {
		if c.admin != nil {
			c.admin.Close()
		}
	})
	closers = append(closers, c.gatherer().FollowServerLog(ctx))

	if ready, err = c.prepareStore(ctx); err != nil || !ready {
		return closeAll, false, store.Full(c.run.driver(c.pc), c.pc, c.run.opts.DataDir, err)
	}
	c.gatherer().ProbeStats(ctx)
	// A cell the resumed run had begun has its env lines, size and plans
	// on disk already.
	resumed := c.run.journal.ResumedCell(c.name())
	if !resumed {
		c.envLines(ctx)
		c.recordSize(ctx)
	}
	if err := c.bindQueries(); err != nil {
		return closeAll, false, err
	}
	if !resumed {
		c.explain(ctx)
	}
	return closeAll, true, nil
}

// measureGroup runs a group's points with run, unless the phase only
// loads.
func (c *cell) measureGroup(ctx context.Context, g []*plan.Scenario, run func(context.Context, []*plan.Scenario)) {
	if c.run.opts.Phase != PhaseLoad {
		c.measured = true
		run(ctx, g)
		c.advanceTruth()
	}
}

// afterGroup checks a group's answers once its points ran: against the
// truth its writes lead to.
func (c *cell) afterGroup(ctx context.Context, g []*plan.Scenario) error {
	if c.broken != nil {
		return c.broken
	}
	if ctx.Err() != nil {
		return ctx.Err() // a check cut short would read as failed
	}
	for _, sc := range g {
		if c.run.journal.HasCheck(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name) {
			continue
		}
		c.check(ctx, sc)
		if ctx.Err() == nil {
			c.run.recorded(c.run.journal.Check(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name))
		}
	}
	return nil
}

// aborted reports whether a threshold with abort ended sc in this cell,
// logging it the first time it is asked.
func (c *cell) aborted(sc *plan.Scenario) bool {
	why := c.run.gates.AbortedBy(sc.Name, c.pc.Backend.Name, c.pc.Scale.Name)
	if why == "" {
		return false
	}
	if c.abortLogged == nil {
		c.abortLogged = map[string]bool{}
	}
	if !c.abortLogged[sc.Name] {
		c.abortLogged[sc.Name] = true
		c.run.logf("%s %s: %s; the scenario ends here (abort = true)", c.name(), sc.Name, why)
	}
	return true
}

// runScenario runs every point of a scenario through its kind.
func (c *cell) runScenario(ctx context.Context, sc *plan.Scenario) {
	if sc.Writes && !c.written {
		// Recorded before the first write: a run killed mid-scenario
		// leaves a store that says it was written.
		if err := c.markWritten(ctx, sc.Name); err != nil {
			c.run.fail("%s %s: %v", c.name(), sc.Name, err)
			return
		}
	}
	if len(sc.Samplers) > 0 && len(sc.Points) > 0 {
		g := c.startSamplers(ctx, sc)
		defer g.Stop()
	}
	if stop := c.startDuring(ctx, sc); stop != nil {
		defer stop()
	}
	for i, pt := range sc.Points {
		if ctx.Err() != nil || c.broken != nil || c.aborted(sc) {
			return
		}
		lo := sc.PointEstimate(i).Best
		if c.run.journal.HasPoint(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name, i) {
			c.run.skip(lo)
			continue
		}
		env, counts := c.pointEnv(sc, i)
		c.run.begin(fmt.Sprintf("%s %s %s", c.name(), sc.Name, pt.Describe()), "ops", lo, 0, counts)
		pctx := c.run.watch(ctx)
		var err error
		c.withNoise(sc, i, 0, func() { err = c.runPoint(pctx, sc, i, pt, env) })
		c.finishPoint(env)
		if err == nil && c.broken == nil {
			c.analyzePoint(pctx, sc, i)
		}
		c.run.end()
		c.run.pointDone()
		if err != nil {
			c.run.fail("%s %s: %s: %v", c.name(), sc.Name, pt.Describe(), err)
		}
		if ctx.Err() == nil {
			c.run.recorded(c.run.journal.Point(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name, i))
		}
	}
}

// prepareStore makes sure the store holds the dataset, untouched: it
// reuses a store an earlier run loaded with the same data and never wrote
// to, loads one the driver just created, and drops and reloads only stores
// this tool created. It reports whether scenarios can run.
func (c *cell) prepareStore(ctx context.Context) (bool, error) {
	bc := c.pc.Backend
	fp := store.Fingerprint(c.pc.Scale.Gen, bc)
	state := store.ReadMeta(ctx, c.admin)
	if !bc.Load.Declared {
		c.run.logf("%s: no load block: using the store as it is", c.name())
		return true, c.applySettings(ctx)
	}
	if !c.be.Created() && !state.Ours {
		return false, fmt.Errorf("the store exists and was not created by %s (no %s table): refusing to load into it or drop it; point the backend at a new database or file", store.CreatedBy, store.MetaTable)
	}
	// Ours: the settings held back until now may write to it.
	if err := c.applySettings(ctx); err != nil {
		return false, err
	}
	clean := state.Ours && state.Loaded && state.Fingerprint == fp && state.Written == ""
	if clean && !c.run.opts.Reload {
		c.run.logf("%s: reusing the store loaded by an earlier run", c.name())
		if c.run.opts.Phase != PhaseBench && c.run.opts.Phase != PhaseSustained {
			c.run.skip(c.pc.LoadEstimate().Best)
		}
		return true, nil
	}
	if c.run.opts.Phase == PhaseBench || c.run.opts.Phase == PhaseSustained {
		if state.Written != "" {
			return false, fmt.Errorf("phase %s needs a clean store, and this one was written to by scenario %s after its load (run with -phase all to reload it)", c.run.opts.Phase, state.Written)
		}
		return false, fmt.Errorf("phase %s needs a store loaded with this dataset, and this one is not (run with -phase all or load)", c.run.opts.Phase)
	}
	if state.Ours && !c.be.Created() {
		// Ours, but stale, written to or half loaded: start from an empty store.
		dropper, ok := c.be.(drivers.Dropper)
		if !ok {
			return false, fmt.Errorf("the store holds other data and driver %q cannot drop it", bc.Driver)
		}
		c.admin.Close()
		if err := dropper.Drop(ctx); err != nil {
			return false, fmt.Errorf("dropping the stale store: %w", err)
		}
		c.be.Close()
		be, err := c.drv.Open(ctx, c.cfg)
		if err != nil {
			c.be, c.admin = nil, nil
			return false, fmt.Errorf("reopening the store: %w", err)
		}
		c.be = be
		if c.admin, err = c.be.Session(ctx); err != nil {
			return false, fmt.Errorf("connecting: %w", err)
		}
		why := "stale"
		if state.Written != "" {
			why = "written to by " + state.Written
		}
		c.run.logf("%s: dropped the store it had created (%s) to reload it", c.name(), why)
	}
	return c.load(ctx, fp)
}

// applySettings lets a backend that held back its settings on a store it
// did not create apply them, and reopens the admin session so it has them.
// Called only once the store is known to be the engine's own, or is used
// as it is by the spec's choice.
func (c *cell) applySettings(ctx context.Context) error {
	sa, ok := c.be.(drivers.SettingsApplier)
	if !ok {
		return nil
	}
	if err := sa.ApplySettings(ctx); err != nil {
		return fmt.Errorf("applying the settings: %w", err)
	}
	c.admin.Close()
	var err error
	if c.admin, err = c.be.Session(ctx); err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	return nil
}

// load marks the store as the engine's, not loaded, and loads it
// (engine/storeload).
func (c *cell) load(ctx context.Context, fp string) (bool, error) {
	if err := store.WriteMeta(ctx, c.admin, map[string]string{"created_by": store.CreatedBy, "fingerprint": fp, "loaded": "0", "written": ""}); err != nil {
		// A store that does not say it is ours would be refused by every
		// later run: one this run created goes again.
		if dropper, ok := c.be.(drivers.Dropper); ok && c.be.Created() {
			c.admin.Close()
			c.admin = nil
			if derr := dropper.Drop(ctx); derr != nil {
				return false, fmt.Errorf("%w (and removing the store it had just created failed: %w)", err, derr)
			}
			c.be = nil
			return false, fmt.Errorf("%w (the store it had just created is removed)", err)
		}
		return false, err
	}
	return storeload.Cell{Name: c.name(), Plan: c.pc, Store: c.be, Admin: c.admin, Cap: c.run.plan.Sampling.LoadMax,
		Progress: liveTasks{c.run}, Phase: func() { c.phase(results.PhaseLoad) }, Emit: c.run.emit, Logf: c.run.logf, Log: c.run.dir.Log,
	}.Load(ctx)
}

// markWritten records in the store that scenario changed its data, so no
// later run measures it as a clean store.
func (c *cell) markWritten(ctx context.Context, scenario string) error {
	if !c.pc.Backend.Load.Declared {
		c.written = true
		return nil
	}
	if err := store.WriteMeta(ctx, c.admin, map[string]string{"written": scenario}); err != nil {
		return fmt.Errorf("recording the write in %s: %w", store.MetaTable, err)
	}
	c.written = true
	return nil
}

// bindQueries binds every query's markers for the backend.
func (c *cell) bindQueries() error {
	c.queries = map[string]*boundQuery{}
	for name, q := range c.pc.Queries {
		b, err := sqltext.Bind(q.SQL, c.be.Placeholder)
		if err != nil {
			return fmt.Errorf("query %s: %w", name, err)
		}
		bq := &boundQuery{name: name, bound: b, params: q.Params}
		// A query only checks use may lack parameters the checks supply.
		if binder, err := params.New(c.pc.Scale.Gen, b.Names, q.Params, params.WithLive(c)); err == nil {
			bq.binder = binder
		}
		c.queries[name] = bq
	}
	return nil
}

// explain writes the plan of each query each scenario runs into plans/
// (engine/explain), once per query.
func (c *cell) explain(ctx context.Context) {
	scs := make([]explain.Scenario, len(c.pc.Scenarios))
	for i, sc := range c.pc.Scenarios {
		scs[i] = explain.Scenario{Name: sc.Name, Queries: sc.Queries}
	}
	c.explainer().Plans(ctx, scs, c.explainQuery)
}

// recordSize appends the store's size (and buffer cache) to sizes.txt.
func (c *cell) recordSize(ctx context.Context) {
	sz, ok := c.be.(drivers.Sizer)
	if !ok {
		return
	}
	n, err := sz.Size(ctx)
	if err != nil {
		c.run.logf("%s: store size: %v", c.name(), err)
		return
	}
	row := results.SizeRow{Scale: c.pc.Scale.Name, Backend: c.pc.Backend.Name, Bytes: n}
	if cs, ok := c.be.(drivers.CacheSizer); ok {
		if sb, err := cs.CacheSize(ctx); err == nil {
			row.SharedBuffers = sb
		}
	}
	c.run.emit(row)
}

// explainCap is the smallest probe ceiling of the scenarios that run a
// query: explaining it may run it.
func (c *cell) explainCap(query string) time.Duration {
	limit := c.run.plan.Sampling.Probe
	for _, sc := range c.pc.Scenarios {
		for _, qn := range sc.Queries {
			if qn == query && sc.Sampling.Probe < limit {
				limit = sc.Sampling.Probe
			}
		}
	}
	return limit
}

// envLines appends the backend's version and settings in force to env.txt.
func (c *cell) envLines(ctx context.Context) {
	bc := c.pc.Backend
	prefix := fmt.Sprintf("backend.%s.%s.", bc.Name, c.pc.Scale.Name)
	kv := []results.KV{{Key: prefix + "driver", Value: bc.Driver}}
	if cs, ok := c.be.(drivers.CacheSetting); ok {
		kv = append(kv, results.KV{Key: prefix + results.CacheSettingKey, Value: cs.CacheSetting()})
	}
	if v, ok := c.be.(drivers.Versioner); ok {
		if s, err := v.Version(ctx); err == nil {
			kv = append(kv, results.KV{Key: prefix + "version", Value: s})
		}
	}
	names := make([]string, 0, len(bc.Settings))
	for n := range bc.Settings {
		names = append(names, n)
	}
	sort.Strings(names)
	if reader, ok := c.be.(drivers.SettingsReader); ok && len(names) > 0 {
		if got, err := reader.ReadSettings(ctx, names); err == nil {
			for _, n := range names {
				kv = append(kv, results.KV{Key: prefix + "setting." + n, Value: got[n]})
			}
		} else {
			kv = append(kv, results.KV{Key: prefix + "settings_error", Value: err.Error()})
		}
	}
	kv = append(kv, c.gatherer().Facts(ctx, prefix)...)
	kv = append(kv, c.extensionFacts(ctx, prefix)...)
	optNames := make([]string, 0, len(bc.Options))
	for n := range bc.Options {
		optNames = append(optNames, n)
	}
	sort.Strings(optNames)
	for _, n := range optNames {
		kv = append(kv, results.KV{Key: prefix + "option." + n, Value: bc.Options[n]})
	}
	_ = c.run.dir.WriteEnvLines(kv, func(key string) bool {
		return strings.HasSuffix(key, ".option.dsn") || strings.Contains(key, "password")
	})
}
