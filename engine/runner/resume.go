package runner

import (
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/journal"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// A resumed run (Options.Resume) continues the interrupted one from its
// journal (engine/journal): the points and checks it recorded are not
// run again, an interleaved point goes on from the rep after the last
// one recorded, with the reps before given back to it (their rows are
// on disk, what its summary needs of them saved), and the run's check
// verdicts are the ones both parts wrote.

// resumeReps gives p back the reps the interrupted run recorded of it.
// It reports whether p has reps left to run; a point whose every rep was
// recorded is finished here.
func (c *cell) resumeReps(p *repPoint) bool {
	saved := c.run.journal.Reps(c.pc.Scale.Name, c.pc.Backend.Name, p.sc.Name, p.index)
	if len(saved) == 0 {
		return true
	}
	if err := p.reps.Restore(saved); err != nil {
		// Its reps' rows are on disk: measuring it again from rep 1
		// would measure them twice.
		c.run.fail("%s %s: %s: resuming after its %d rep(s) measured: %v", c.name(), p.sc.Name, p.pt.Describe(), len(saved), err)
		c.run.skip(p.est * time.Duration(p.reps.Count()))
		c.run.pointDone()
		return false
	}
	p.resumed = len(saved)
	c.run.skip(p.est * time.Duration(min(p.resumed, p.reps.Count())))
	if p.resumed >= p.reps.Count() {
		c.finishRep(p, p.resumed, true)
		return false
	}
	return true
}

// recordRep journals rep n of p, measured whole, with what p saves of it.
func (c *cell) recordRep(p *repPoint, n int) {
	if c.run.journal == nil {
		return
	}
	saved, err := p.reps.Saved(n)
	if err != nil {
		err = fmt.Errorf("journal: %w", err)
	} else {
		err = c.run.journal.Rep(c.pc.Scale.Name, c.pc.Backend.Name, p.sc.Name, p.index, n, saved)
	}
	c.run.recorded(err)
}

// resumedChecks takes the check lines the interrupted run wrote after
// its start as this invocation's: checks.txt's TOTAL line then counts the
// whole run, and so does the exit status, even when nothing is left to
// run; the thresholds they judged are not reported unmatched. So are its
// noise rows: env.txt's noise summary then covers the whole run.
func (r *run) resumedChecks(jr *journal.Journal) error {
	lines, err := results.ChecksFrom(r.dir.Path(), jr.Started(results.ChecksFile))
	if err != nil {
		return fmt.Errorf("reading the interrupted run's checks: %w", err)
	}
	r.dir.Carry(results.Count(lines))
	r.gates.Resumed(lines)
	rows, err := results.NoiseFrom(r.dir.Path(), jr.Started(results.NoiseFile))
	if err != nil {
		return fmt.Errorf("reading the interrupted run's noise rows: %w", err)
	}
	r.noiseRows = append(r.noiseRows, rows...)
	return nil
}
