package gather

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Tap hands the raw rows a point emits to its evidence while it runs:
// the run passes every record it emits through Observe.
type Tap struct {
	mu   sync.Mutex
	on   bool
	key  results.Row // the point's scenario, backend and scale
	rows []results.Row
}

// Observe keeps rec when it is a raw row of the point being tapped.
func (t *Tap) Observe(rec results.Record) {
	raw, ok := rec.(results.Raw)
	if !ok {
		return
	}
	t.mu.Lock()
	if t.on && raw.Scenario == t.key.Scenario && raw.Backend == t.key.Backend && raw.Scale == t.key.Scale {
		t.rows = append(t.rows, results.Row(raw))
	}
	t.mu.Unlock()
}

// start taps the raw rows of key's point.
func (t *Tap) start(key results.Row) {
	t.mu.Lock()
	t.on, t.rows, t.key = true, nil, key
	t.mu.Unlock()
}

// stop ends the tap and returns the rows it kept.
func (t *Tap) stop() []results.Row {
	t.mu.Lock()
	defer t.mu.Unlock()
	rows := t.rows
	t.on, t.rows = false, nil
	return rows
}

// roundTripFloor measures, once per cell on a session of its own, the
// time of an empty statement: the least a call can take on the cell's
// connections.
func (c *Cell) roundTripFloor(ctx context.Context) time.Duration {
	if c.floorDone {
		return c.floor
	}
	c.floorDone, c.floor = true, -1
	s, err := c.Store().Session(ctx)
	if err == nil {
		c.floor, err = evidence.RoundTripFloor(ctx, s, evidence.FloorCalls)
		s.Close()
	}
	if err != nil {
		c.floor = -1
		c.Logf("%s: round-trip floor unknown: %v", c.Name, err)
	}
	return c.floor
}

// withEvidence wraps fn, point p, so that the database's evidence is
// collected around it and the point's latency split written beside it.
// Nothing it does runs inside the timed calls: the collector snapshots
// before and after and samples from a connection of its own.
func (c *Cell) withEvidence(ctx context.Context, p Point, fn func() error) func() error {
	if !p.Evidence {
		return fn
	}
	return func() error {
		key := results.EvidenceRow{Scenario: p.Scenario, Backend: c.Backend, Scale: c.Scale, Point: p.Index + 1, Rep: p.Rep}
		var rows []results.Row
		facts, split, err := c.collect(ctx, key, func() error {
			c.Tap.start(results.Row{Scenario: p.Scenario, Backend: c.Backend, Scale: c.Scale})
			err := fn()
			rows = c.Tap.stop()
			return err
		}, func() []results.Row { return rows })
		for _, r := range facts {
			c.Emit(r)
		}
		if split != nil {
			c.Emit(*split)
		}
		return err
	}
}

// Stretch runs fn, a stretch of a point of scenario whose timed calls
// return their rows, with the database's evidence collected around it,
// and returns that evidence keyed by the scenario, the cell and point 0
// (the caller keys its stretches; nothing is written here). With
// evidence off it only runs fn.
func (c *Cell) Stretch(ctx context.Context, scenario string, evidenceOn bool, fn func() ([]results.Row, error)) ([]results.EvidenceRow, *results.SplitRow, error) {
	var rows []results.Row
	run := func() (err error) {
		rows, err = fn()
		return err
	}
	if !evidenceOn {
		return nil, nil, run()
	}
	key := results.EvidenceRow{Scenario: scenario, Backend: c.Backend, Scale: c.Scale}
	return c.collect(ctx, key, run, func() []results.Row { return rows })
}

// collect runs fn between a start and a stop of the store's evidence
// collector and returns the facts keyed as key and, when rowsOf gives
// rows after fn, their latency split; an unavailable instrument is a
// fact saying so.
func (c *Cell) collect(ctx context.Context, key results.EvidenceRow, fn func() error, rowsOf func() []results.Row) ([]results.EvidenceRow, *results.SplitRow, error) {
	floor := c.roundTripFloor(ctx)
	var probe drivers.EvidenceProbe
	var perr error
	if ec, ok := c.Store().(drivers.EvidenceCollector); ok {
		probe, perr = ec.StartEvidence(ctx)
	}
	st := &stretch{probe: probe, cpu0: evidence.CPU()}
	c.openMu.Lock()
	c.open = append(c.open, st)
	c.openMu.Unlock()

	err := fn()

	c.openMu.Lock()
	c.open = slices.DeleteFunc(c.open, func(x *stretch) bool { return x == st })
	cpu := evidence.CPU() - st.cpu0
	c.openMu.Unlock()
	var ev []drivers.Evidence
	if probe != nil {
		ev, perr = probe.Stop(context.WithoutCancel(ctx))
	}
	var facts []results.EvidenceRow
	for _, e := range ev {
		r := key
		r.Source, r.Query, r.Name, r.Value, r.Unit = e.Source, e.Query, e.Name, e.Value, e.Unit
		facts = append(facts, r)
	}
	if perr != nil {
		// Said on disk, so that a missing instrument reads as such.
		r := key
		r.Source, r.Name, r.Query, r.Value, r.Unit = "engine", "unavailable", perr.Error(), results.Unknown, ""
		facts = append(facts, r)
		c.noteOnce(perr.Error())
	}
	var split *results.SplitRow
	if rows := rowsOf(); len(rows) > 0 {
		s := evidence.Split(rows, ev, floor, cpu)
		s.Scenario, s.Backend, s.Scale, s.Point, s.Rep = key.Scenario, key.Backend, key.Scale, key.Point, key.Rep
		split = &s
	}
	return facts, split, err
}

// stretch is one collection under way: its probe and the process's CPU
// at its start.
type stretch struct {
	probe   drivers.EvidenceProbe
	cpu0    time.Duration
	rebased bool
}

// WindowStart starts the stretches under way again from now, each once:
// the measuring loop calls it when its clients have made their warmup
// calls and wait at the barrier, so that a point's evidence and CPU are
// its timed calls' (measure.WithWindowStart). A probe that cannot start
// again keeps counting from the stretch's start, the warmup included.
func (c *Cell) WindowStart(ctx context.Context) {
	c.openMu.Lock()
	defer c.openMu.Unlock()
	for _, st := range c.open {
		if st.rebased {
			continue
		}
		st.rebased = true
		if r, ok := st.probe.(drivers.EvidenceRebaser); ok {
			if err := r.Rebase(ctx); err != nil {
				c.Logf("%s: evidence counted from before the warmup: %v", c.Name, err)
			}
		}
		st.cpu0 = evidence.CPU()
	}
}

// noteOnce logs an unavailable instrument once per cell.
func (c *Cell) noteOnce(why string) {
	if c.noted == nil {
		c.noted = map[string]bool{}
	}
	if !c.noted[why] {
		c.noted[why] = true
		c.Logf("%s: evidence unavailable: %s", c.Name, why)
	}
}
