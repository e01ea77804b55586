package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// Interleaved reps (sampling order "interleaved", the default): the reps
// of a point run back to back take seconds, so they all see the machine in
// one state, and two runs then differ by more than their reps do; compare
// reads that drift as a change. Running rep 1 of every point of a group,
// then rep 2, and so on spreads each point's reps over the group's whole
// time, so the variation between reps includes the drift.
//
// A group is a run of consecutive scenarios, in the cell's order, whose
// points are kind.Repeatable, that write nothing, watch no samplers, check
// nothing while they run (during_ms) and ask for the interleaved order. Every other scenario runs alone, where
// it is declared, with its reps back to back: a scenario that writes still
// comes after the reads declared before it and before those declared
// after it, so every point reads the store in the same state as in the
// sequential order.

// interleaved reports whether sc's reps may run among those of its
// neighbours.
func interleaved(sc *plan.Scenario) bool {
	if !sc.Sampling.Interleaved || sc.Writes || sc.During || len(sc.Samplers) > 0 || len(sc.Points) == 0 {
		return false
	}
	for _, pt := range sc.Points {
		if _, ok := pt.(kind.Repeatable); !ok {
			return false
		}
	}
	return true
}

// groups splits the cell's scenarios the run selected, in order, into
// what runs together: consecutive interleaved scenarios form one group,
// every other scenario a group of its own.
func (c *cell) groups() [][]*plan.Scenario {
	var out [][]*plan.Scenario
	joinable := false // the last group takes interleaved scenarios
	for _, sc := range c.pc.Scenarios {
		if !c.run.selected(sc) {
			continue
		}
		il := interleaved(sc)
		if il && joinable {
			out[len(out)-1] = append(out[len(out)-1], sc)
			continue
		}
		out = append(out, []*plan.Scenario{sc})
		joinable = il
	}
	return out
}

// runGroup runs one group's points: a lone scenario that does not
// interleave in its own way, the others rep by rep across all points.
func (c *cell) runGroup(ctx context.Context, g []*plan.Scenario) {
	if len(g) == 1 && !interleaved(g[0]) {
		c.runScenario(ctx, g[0])
		return
	}
	c.runInterleaved(ctx, g)
}

// repPoint is one point of an interleaved group.
type repPoint struct {
	c      *cell // whose point it is
	sc     *plan.Scenario
	index  int // in sc.Points
	pt     kind.Point
	reps   kind.RepRun
	counts func() (int64, int64)
	est    time.Duration // one rep's share of the point's estimate
	open   bool          // Finish not called yet
	// resumed is how many reps the interrupted run measured (resume.go):
	// the point goes on with the rep after them.
	resumed int
}

func (p *repPoint) name(c *cell, n int) string {
	return fmt.Sprintf("%s %s %s rep %d/%d", c.name(), p.sc.Name, p.pt.Describe(), n, p.reps.Count())
}

// runInterleaved runs rep 1 of every point of the group, then rep 2, and
// so on. Each rep's rows are emitted as it is measured, and a point's
// timing rows once its last rep is done. A point whose rep reports done
// (its probe found a ceiling, an error ended it) runs no further rep.
func (c *cell) runInterleaved(ctx context.Context, g []*plan.Scenario) {
	interleaveCells(ctx, []cellGroup{{c: c, g: g}})
}

// cellGroup is one cell's scenarios of a group that runs as one.
type cellGroup struct {
	c *cell
	g []*plan.Scenario
}

// interleaveCells runs the groups' points rep by rep: rep 1 of every point,
// then rep 2, point after point and, within a point, cell after cell (the
// paired order: the backends of a scale measured side by side, so drift
// and neighbours hit each alike). The groups hold the same scenarios.
func interleaveCells(ctx context.Context, parts []cellGroup) {
	var pts []*repPoint
	rounds := 0
	for si := range parts[0].g {
		most := 0
		for _, part := range parts {
			most = max(most, len(part.g[si].Points))
		}
		for i := 0; i < most; i++ {
			for _, part := range parts {
				c, sc := part.c, part.g[si]
				if i >= len(sc.Points) {
					continue
				}
				pt := sc.Points[i]
				lo := sc.PointEstimate(i).Best
				if c.run.journal.HasPoint(c.pc.Scale.Name, c.pc.Backend.Name, sc.Name, i) {
					c.run.skip(lo)
					continue
				}
				env, counts := c.pointEnv(sc, i)
				reps := pt.(kind.Repeatable).Reps(env)
				n := max(reps.Count(), 1)
				p := &repPoint{c: c, sc: sc, index: i, pt: pt, reps: reps, counts: counts, est: lo / time.Duration(n), open: true}
				if !c.resumeReps(p) {
					continue
				}
				pts = append(pts, p)
				rounds = max(rounds, reps.Count())
			}
		}
	}
	defer func() {
		// Interrupted or broken: the reps measured so far still give rows,
		// of points a resume measures again.
		for _, p := range pts {
			if p.open {
				p.c.finishRep(p, 0, false)
			}
		}
	}()
	for n := 1; n <= rounds; n++ {
		for _, p := range pts {
			c := p.c
			if !p.open || n <= p.resumed || n > p.reps.Count() || c.broken != nil {
				continue
			}
			if ctx.Err() != nil {
				return
			}
			if c.aborted(p.sc) {
				c.finishRep(p, n-1, true)
				continue
			}
			done, err := c.runRep(ctx, p, n)
			if err != nil {
				c.run.fail("%s %s: %s: %v", c.name(), p.sc.Name, p.pt.Describe(), err)
			}
			if !done && err == nil && ctx.Err() == nil {
				c.recordRep(p, n)
			}
			switch {
			case done || err != nil || n == p.reps.Count():
				c.finishRep(p, n, ctx.Err() == nil)
			default:
				// Other points run before this one's next rep: its clients
				// or workers are closed meanwhile.
				if err := p.reps.Release(); err != nil {
					c.run.fail("%s %s: %s: %v", c.name(), p.sc.Name, p.pt.Describe(), err)
					c.finishRep(p, n, ctx.Err() == nil)
				}
			}
		}
	}
}

// runRep runs rep n of p as one task of the live progress.
func (c *cell) runRep(ctx context.Context, p *repPoint, n int) (done bool, err error) {
	n0, e0 := p.counts()
	c.run.begin(p.name(c, n), "ops", p.est, 0, func() (int64, int64) {
		n1, e1 := p.counts()
		return n1 - n0, e1 - e0
	})
	defer c.run.end()
	ctx = c.windowed(c.run.watch(ctx))
	c.withNoise(p.sc, p.index, n, func() {
		err = c.gatherer().Around(ctx, c.gatherPoint(p.sc, p.index, n, p.pt), func() error {
			var err error
			done, err = p.reps.Rep(ctx, n)
			return err
		})
	})
	return done, err
}

// finishRep emits p's timing rows after rep n, its last, and when record
// says the point is whole, journals it; the reps it will not run count as
// done for the progress.
func (c *cell) finishRep(p *repPoint, n int, record bool) {
	p.open = false
	if err := p.reps.Finish(); err != nil {
		c.run.fail("%s %s: %s: %v", c.name(), p.sc.Name, p.pt.Describe(), err)
	}
	if record && n > 0 && c.broken == nil {
		c.analyzePoint(context.Background(), p.sc, p.index)
	}
	if record {
		c.run.recorded(c.run.journal.Point(c.pc.Scale.Name, c.pc.Backend.Name, p.sc.Name, p.index))
	}
	c.run.pointDone()
	if left := p.reps.Count() - n; left > 0 && n > 0 {
		c.run.skip(p.est * time.Duration(left))
	}
}
