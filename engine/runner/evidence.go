package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// cellEvidence is what a cell measures once for every point's split.
type cellEvidence struct {
	floorDone bool
	floor     time.Duration // the round-trip floor; negative when unknown
	floorErr  error
	noted     map[string]bool // unavailability already logged
}

// rawTap hands the raw rows a point emits to its evidence while it runs.
type rawTap struct {
	mu   sync.Mutex
	on   bool
	key  results.Row // the point's scenario, backend and scale
	rows []results.Row
}

func (r *run) tapRaw(rec results.Record) {
	raw, ok := rec.(results.Raw)
	if !ok {
		return
	}
	r.tap.mu.Lock()
	if r.tap.on && raw.Scenario == r.tap.key.Scenario && raw.Backend == r.tap.key.Backend && raw.Scale == r.tap.key.Scale {
		r.tap.rows = append(r.tap.rows, results.Row(raw))
	}
	r.tap.mu.Unlock()
}

// roundTripFloor measures, once per cell on a session of its own, the
// time of an empty statement: the least a call can take on the cell's
// connections.
func (c *cell) roundTripFloor(ctx context.Context) time.Duration {
	if c.ev.floorDone {
		return c.ev.floor
	}
	c.ev.floorDone, c.ev.floor = true, -1
	s, err := c.be.Session(ctx)
	if err == nil {
		c.ev.floor, err = evidence.RoundTripFloor(ctx, s, evidence.FloorCalls)
		s.Close()
	}
	if err != nil {
		c.ev.floor, c.ev.floorErr = -1, err
		c.run.logf("%s: round-trip floor unknown: %v", c.name(), err)
	}
	return c.ev.floor
}

// withEvidence wraps fn, point i of sc (rep 0: all its reps), so that the
// database's evidence is collected around it and the point's latency
// split written beside it. Nothing it does runs inside the timed calls:
// the collector snapshots before and after and samples from a connection
// of its own.
func (c *cell) withEvidence(ctx context.Context, sc *plan.Scenario, i, rep int, fn func() error) func() error {
	if !sc.Sampling.Evidence {
		return fn
	}
	return func() error {
		floor := c.roundTripFloor(ctx)
		var probe drivers.EvidenceProbe
		var perr error
		if ec, ok := c.be.(drivers.EvidenceCollector); ok {
			probe, perr = ec.StartEvidence(ctx)
		}
		c.run.tap.mu.Lock()
		c.run.tap.on, c.run.tap.rows = true, nil
		c.run.tap.key = results.Row{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name}
		c.run.tap.mu.Unlock()
		cpu0 := evidence.CPU()

		err := fn()

		cpu := evidence.CPU() - cpu0
		c.run.tap.mu.Lock()
		rows := c.run.tap.rows
		c.run.tap.on, c.run.tap.rows = false, nil
		c.run.tap.mu.Unlock()
		var ev []drivers.Evidence
		if probe != nil {
			ev, perr = probe.Stop(context.WithoutCancel(ctx))
		}
		key := results.EvidenceRow{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Point: i + 1, Rep: rep}
		for _, e := range ev {
			r := key
			r.Source, r.Query, r.Name, r.Value, r.Unit = e.Source, e.Query, e.Name, e.Value, e.Unit
			c.run.emit(r)
		}
		if perr != nil {
			// Said on disk, so that a missing instrument reads as such.
			r := key
			r.Source, r.Name, r.Query, r.Value, r.Unit = "engine", "unavailable", perr.Error(), results.Unknown, ""
			c.run.emit(r)
			c.noteOnce(perr.Error())
		}
		if len(rows) > 0 {
			s := evidence.Split(rows, ev, floor, cpu)
			s.Scenario, s.Backend, s.Scale, s.Point, s.Rep = key.Scenario, key.Backend, key.Scale, key.Point, key.Rep
			c.run.emit(s)
		}
		return err
	}
}

// noteOnce logs an unavailable instrument once per cell.
func (c *cell) noteOnce(why string) {
	if c.ev.noted == nil {
		c.ev.noted = map[string]bool{}
	}
	if !c.ev.noted[why] {
		c.ev.noted[why] = true
		c.run.logf("%s: evidence unavailable: %s", c.name(), why)
	}
}

// analyzePoint writes, after point i of sc has run its timed reps, what
// one more execution of each of its queries did by the database's own
// account (plans/<scale>-<backend>-<scenario>-pNN-<query>-analyze.<ext>):
// the plan with actual rows and buffers, or per-operator times.
func (c *cell) analyzePoint(ctx context.Context, sc *plan.Scenario, i int) {
	ax, ok := c.be.(drivers.AnalyzeExplainer)
	if !ok || !sc.Sampling.Evidence || ctx.Err() != nil {
		return
	}
	for _, n := range sc.Queries {
		q := c.queries[n]
		if q == nil || q.binder == nil {
			continue
		}
		args := append([]any(nil), q.binder.Client(1, 0).Next()...)
		actx, cancel := context.WithTimeout(ctx, c.explainCap(n))
		text, err := ax.ExplainAnalyze(actx, q.bound.SQL, args)
		cancel()
		if err != nil {
			text = "EXPLAIN ANALYZE failed: " + err.Error()
		}
		ext := "txt"
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			ext = "json"
		}
		w, err := c.run.dir.Plan(results.ScenarioPlanName(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name,
			fmt.Sprintf("p%02d-%s-analyze", i+1, n), ext))
		if err != nil {
			c.run.logf("%s %s: %v", c.name(), sc.Name, err)
			return
		}
		io.WriteString(w, results.FormatPlan(q.bound.SQL, args, text, ext))
		w.Close()
	}
}
