package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// startDuring runs the scenario's invariant checks (during_ms) on a
// session of their own while its points run, as write_mixed's verify
// reads do; the returned stop ends them and emits one line per check
// ("NAME (during)"). Nil when the scenario has none.
func (c *cell) startDuring(ctx context.Context, sc *plan.Scenario) func() {
	var during []plan.Check
	for _, ck := range c.pc.Checks(sc, c.truth) {
		if ck.DuringMS > 0 && ck.Err == "" {
			during = append(during, ck)
		}
	}
	if len(during) == 0 {
		return nil
	}
	sess, err := c.be.Session(ctx)
	if err != nil {
		c.run.fail("%s %s: a session for the checks during the scenario: %v", c.name(), sc.Name, err)
		return nil
	}
	dctx, cancel := context.WithCancel(ctx)
	tallies := make([]duringTally, len(during))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		next := make([]time.Time, len(during))
		for {
			now := time.Now()
			wait := time.Hour
			for i, ck := range during {
				if !now.Before(next[i]) {
					tallies[i].run(dctx, c, sess, sc, ck)
					next[i] = time.Now().Add(time.Duration(ck.DuringMS) * time.Millisecond)
				}
				wait = min(wait, time.Until(next[i]))
			}
			select {
			case <-dctx.Done():
				return
			case <-time.After(max(wait, time.Millisecond)):
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
		sess.Close()
		for i, ck := range during {
			c.run.emit(tallies[i].line(c, sc, ck))
		}
	}
}

// duringTally counts one invariant's runs during a scenario.
type duringTally struct {
	runs, failed int
	first        string
}

// run runs every case of ck once; a run cut short by the scenario's end
// counts for nothing.
func (t *duringTally) run(ctx context.Context, c *cell, sess drivers.Session, sc *plan.Scenario, ck plan.Check) {
	bad := ""
	for _, cc := range ck.Cases {
		out, _ := c.runCaseOn(ctx, sess, sc, c.queries[ck.Query], cc)
		if ctx.Err() != nil {
			return
		}
		if out.Status == checks.Fail && bad == "" {
			bad = caseLabel(cc) + out.Detail
		}
	}
	t.runs++
	if bad != "" {
		t.failed++
		if t.first == "" {
			t.first = bad
		}
	}
}

func (t *duringTally) line(c *cell, sc *plan.Scenario, ck plan.Check) results.CheckLine {
	l := results.CheckLine{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Name: ck.Name + " (during)"}
	switch {
	case t.runs == 0:
		l.Status, l.Detail = string(checks.Skip), "the scenario ended before a run completed"
	case t.failed > 0:
		l.Status = string(checks.Fail)
		l.Detail = fmt.Sprintf("%d of %d runs during the scenario wrong; first: %s", t.failed, t.runs, t.first)
	default:
		l.Status = string(checks.Pass)
		l.Detail = fmt.Sprintf("%d runs during the scenario, all as expected", t.runs)
	}
	return l
}
