package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/store"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// pointEnv returns the Env of point number index of sc: the clients are
// goroutines of this process unless the backend runs them in workers.
func (c *cell) pointEnv(sc *plan.Scenario, index int) (kind.Env, func() (int64, int64)) {
	e := &pointEnv{c: c, sc: sc}
	switch c.pc.Backend.ClientModel {
	case plan.ClientsProcess, plan.ClientsProcesses:
		return &workerEnv{pointEnv: e}, e.counts
	}
	return e, e.counts
}

// workerEnv is the Env of a backend whose clients run in worker processes.
type workerEnv struct{ *pointEnv }

var _ kind.WorkerEnv = (*workerEnv)(nil)

// StartWorkers implements kind.WorkerEnv.
func (e *workerEnv) StartWorkers(ctx context.Context, index int, describe string, samp measure.Sampling, streams []kind.WorkerStream) (kind.Workers, error) {
	wp, err := e.start(ctx, index, describe, samp, nil, streams)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return wp, nil
}

// StartTimedWorkers implements kind.WorkerEnv.
func (e *workerEnv) StartTimedWorkers(ctx context.Context, index int, describe string, t measure.Timed, streams []kind.WorkerStream) (kind.TimedWorkers, error) {
	// Workers run a timed assignment from its Timed alone; the sampling
	// only describes the point (a fixed duration, one rep; a timed run's
	// calls still running at the end are cut after its grace).
	samp := measure.Sampling{Warmup: t.Warmup, MinDuration: t.Duration, MaxDuration: t.Duration, Reps: 1, Probe: t.Grace}
	wp, err := e.start(ctx, index, describe, samp, worker.TimedToWire(t), streams)
	if err != nil {
		return nil, err
	}
	rates := make([]float64, len(streams))
	for i, st := range streams {
		rates[i] = st.Rate
	}
	return &timedPool{workerPool: wp, rates: rates}, nil
}

// start starts the workers of one point, sampled or (timed set) timed.
func (e *workerEnv) start(ctx context.Context, index int, describe string, samp measure.Sampling, timed *worker.WireTimed, streams []kind.WorkerStream) (*workerPool, error) {
	c, bc := e.c, e.c.pc.Backend
	l := c.run.opts.Launcher
	if l == nil {
		return nil, errors.New("the backend runs its clients in processes, and this run has no worker command")
	}
	var ws []worker.PointStream
	total := 0
	for _, st := range streams {
		ws = append(ws, worker.PointStream{Op: st.Op, Mix: st.Mix, Ops: st.Ops, Seed: st.Seed, Clients: st.Clients, Rate: st.Rate})
		total += st.Clients
	}
	n := total
	if bc.ClientModel == plan.ClientsProcesses {
		n = bc.Processes
	}
	sw, single := c.be.(drivers.OneWritingProcess)
	release := single && sw.SingleWriter()
	var assigns []worker.Assign
	for _, sh := range worker.Split(ws, n) {
		assigns = append(assigns, worker.Assign{Scale: c.pc.Scale.Name, Backend: bc.Name, Scenario: e.sc.Name,
			Point: index, Describe: describe, ReadOnly: release && !e.sc.Writes, Sampling: worker.SamplingToWire(samp),
			Timed: timed, Streams: sh})
	}
	if release {
		if e.sc.Writes {
			return nil, fmt.Errorf("driver %q: %w", bc.Driver, kind.ErrOneWritingProcess)
		}
		// The database takes readers in other processes only once this
		// one's read-write handle is closed.
		c.closeStore()
	}
	pool, err := l.Start(ctx, assigns)
	if err != nil {
		if release {
			err = errors.Join(err, c.reopenStore(ctx))
		}
		return nil, err
	}
	st := pool.Startup
	e.Logf("%d worker process(es) started in %s (slowest spawn %s, slowest open %s)", st.Workers,
		st.Total.Round(time.Millisecond), st.Spawn.Round(time.Millisecond), st.Open.Round(time.Millisecond))
	pids := make([]string, 0, len(pool.PIDs()))
	for _, pid := range pool.PIDs() {
		pids = append(pids, fmt.Sprint(pid))
	}
	c.run.logTo("workers", "%s %s %s %s point=%d workers=%d startup_ms=%.1f spawn_ms=%.1f open_ms=%.1f pids=%s\n",
		time.Now().UTC().Format(time.RFC3339), e.sc.Name, bc.Name, c.pc.Scale.Name, index, st.Workers,
		st.Total.Seconds()*1e3, st.Spawn.Seconds()*1e3, st.Open.Seconds()*1e3, strings.Join(pids, ","))
	return &workerPool{Pool: pool, c: c, release: release}, nil
}

// timedPool runs a timed point's workers with its streams' declared
// rates.
type timedPool struct {
	*workerPool
	rates []float64
}

// Run implements kind.TimedWorkers.
func (t *timedPool) Run(ctx context.Context, onWindow func([]measure.Window)) ([]measure.Result, error) {
	return t.Pool.RunTimed(ctx, t.rates, onWindow)
}

// workerPool closes its workers and gives the run its store back.
type workerPool struct {
	*worker.Pool
	c       *cell
	release bool
}

func (w *workerPool) Close() error {
	err := w.Pool.Close()
	if w.release {
		err = errors.Join(err, w.c.reopenStore(context.Background()))
	}
	return err
}

// closeStore closes the run's session and store while workers hold it.
func (c *cell) closeStore() {
	if c.admin != nil {
		c.admin.Close()
	}
	if c.be != nil {
		c.be.Close()
	}
	c.be, c.admin = nil, nil
}

// reopenStore reopens the store after the workers closed it; when it
// cannot, the cell is broken and nothing more runs on it.
func (c *cell) reopenStore(ctx context.Context) error {
	be, err := c.drv.Open(ctx, c.cfg)
	if err == nil {
		c.be = be
		c.admin, err = c.be.Session(ctx)
	}
	if err != nil {
		c.closeStore()
		c.broken = fmt.Errorf("reopening the store after the workers: %w", err)
		return c.broken
	}
	return c.bindQueries()
}

// WorkerCell is a cell as a worker process opens it: the store the
// coordinator loaded, never loaded, created or dropped here.
type WorkerCell struct {
	c      *cell
	reader bool // the point does not write: clients get reader sessions
}

// OpenWorkerCell opens the store of pc for a worker's clients. It refuses
// a store that is missing, was not created by this tool or is not loaded
// (the coordinator loads before it starts workers). readOnly opens it
// read-only where the driver supports it (option access_mode); reader
// says the point does not write (see openClient).
func OpenWorkerCell(ctx context.Context, pc *plan.Cell, reg *drivers.Registry, dataDir string, readOnly, reader bool) (*WorkerCell, error) {
	bc := pc.Backend
	drv, ok := reg.Lookup(bc.Driver)
	if !ok {
		return nil, fmt.Errorf("no driver %q", bc.Driver)
	}
	opts := make(map[string]string, len(bc.Options)+1)
	for k, v := range bc.Options {
		opts[k] = v
	}
	if readOnly {
		for _, n := range drv.OptionNames() {
			if n == "access_mode" {
				opts[n] = "read_only"
			}
		}
	}
	cfg := driverConfig(pc, dataDir, opts)
	be, err := drv.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the store: %w", err)
	}
	c := &cell{pc: pc, drv: drv, cfg: cfg, be: be}
	if be.Created() {
		c.closeStore()
		return nil, errors.New("the store does not exist: the coordinator loads it before it starts workers")
	}
	if bc.Load.Declared {
		s, err := be.Session(ctx)
		if err != nil {
			c.closeStore()
			return nil, fmt.Errorf("connecting: %w", err)
		}
		state := store.ReadMeta(ctx, s)
		s.Close()
		if !state.Ours || !state.Loaded || state.Fingerprint != store.Fingerprint(pc.Scale.Gen, bc) {
			c.closeStore()
			return nil, errors.New("the store does not hold this spec's dataset: workers measure only a store the coordinator loaded")
		}
	}
	// The store is the coordinator's, loaded by this tool (or used as it
	// is by the spec's choice): the spec's settings apply to the worker's
	// connections as to the coordinator's (SQLite holds back its pragmas
	// on a file it did not create until told).
	if sa, ok := be.(drivers.SettingsApplier); ok {
		if err := sa.ApplySettings(ctx); err != nil {
			c.closeStore()
			return nil, fmt.Errorf("applying the settings: %w", err)
		}
	}
	if err := c.bindQueries(); err != nil {
		c.closeStore()
		return nil, err
	}
	return &WorkerCell{c: c, reader: reader}, nil
}

// OpenClient opens one client, as the coordinator's goroutine model does.
func (w *WorkerCell) OpenClient(ctx context.Context, mix []string, index int, seed uint64) (kind.Client, error) {
	cl, err := w.c.openClient(ctx, mix, index, seed, w.reader)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// Close closes the store.
func (w *WorkerCell) Close() { w.c.closeStore() }
