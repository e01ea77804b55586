package runner

import (
	"context"
	"time"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/during"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// startDuring runs the scenario's invariant checks (during_ms) on a
// session of their own while its points run, as write_mixed's verify
// reads do; the returned stop ends them and emits one line per check
// ("NAME (during)"). Nil when the scenario has none.
func (c *cell) startDuring(ctx context.Context, sc *plan.Scenario) func() {
	var list []plan.Check
	for _, ck := range c.pc.Checks(sc, c.truth) {
		if ck.DuringMS > 0 && ck.Err == "" {
			list = append(list, ck)
		}
	}
	if len(list) == 0 {
		return nil
	}
	sess, err := c.be.Session(drivers.WithRole(ctx, drivers.RoleChecker))
	if err != nil {
		c.run.fail("%s %s: a session for the checks during the scenario: %v", c.name(), sc.Name, err)
		return nil
	}
	runs := make([]during.Check, len(list))
	for i, ck := range list {
		runs[i] = during.Check{Every: time.Duration(ck.DuringMS) * time.Millisecond,
			Run: func(ctx context.Context) (string, bool) {
				// Every case once; a run cut short by the scenario's end
				// counts for nothing.
				bad := ""
				for _, cc := range ck.Cases {
					out, _ := c.runCaseOn(ctx, sess, sc, c.queries[ck.Query], cc)
					if ctx.Err() != nil {
						return "", false
					}
					if out.Status == checks.Fail && bad == "" {
						bad = caseLabel(cc) + out.Detail
					}
				}
				return bad, true
			}}
	}
	stop := during.Start(ctx, runs)
	return func() {
		tallies := stop()
		sess.Close()
		for i, ck := range list {
			status, detail := tallies[i].Verdict()
			c.run.emit(results.CheckLine{Status: string(status), Detail: detail,
				Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Name: ck.Name + " (during)"})
		}
	}
}
