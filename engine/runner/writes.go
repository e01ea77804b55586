package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// committedWrites is what a cell knows of the writes run against its
// store since it was loaded, besides each generator's writeSeq (which ks
// committed, which are in doubt): the generators in the order they first
// wrote, and where write_mixed's writer of each began.
type committedWrites struct {
	order     []string
	mixedFrom map[string]int64
}

// note records that generator writes in this cell.
func (w *committedWrites) note(generator string) {
	for _, g := range w.order {
		if g == generator {
			return
		}
	}
	w.order = append(w.order, generator)
}

var _ kind.WriteEnv = (*pointEnv)(nil)

func (e *pointEnv) Driver() string { return e.c.pc.Backend.Driver }

func (e *pointEnv) ClassifyError(err error) drivers.ErrorClass { return e.c.classifyError(err) }

// classifyError is the cell's driver's class of a backend error.
func (c *cell) classifyError(err error) drivers.ErrorClass { return drivers.ClassifyError(c.drv, err) }

func (e *pointEnv) Session(ctx context.Context) (drivers.Session, error) {
	if e.c.be == nil {
		return nil, fmt.Errorf("the store is closed")
	}
	return e.c.be.Session(ctx)
}

func (e *pointEnv) Statements(query string) ([]kind.Statement, error) { return e.c.statements(query) }

func (e *pointEnv) Writes() *writes.Writes { return e.c.pc.Scale.Writes }

// NextWrite implements kind.WriteEnv: write_mixed's writer starts after
// every write of generator handed out so far, by any scenario.
func (e *pointEnv) NextWrite(generator string) int64 {
	n := e.c.writeSeq(generator).Peek()
	w := &e.c.writes
	if w.mixedFrom == nil {
		w.mixedFrom = map[string]int64{}
	}
	w.mixedFrom[generator] = n
	return n
}

func (e *pointEnv) Log(name, format string, args ...any) { e.c.run.logTo(name, format, args...) }

// Committed implements kind.WriteEnv: write_mixed's writes from where it
// began (NextWrite) to n-1 committed, in order, and write n is in doubt
// when inDoubt. Called again, it replaces the earlier record.
func (e *pointEnv) Committed(generator string, n int64, inDoubt bool) {
	c := e.c
	from := c.writes.mixedFrom[generator]
	s := c.writeSeq(generator)
	writes := c.pc.Scale.Writes
	s.DropFrom(from)
	for k := from; k < n; k++ {
		if op, err := writes.Op(generator, k); err == nil {
			s.Commit(k, op.E)
		}
	}
	if inDoubt {
		if op, err := writes.Op(generator, n); err == nil {
			s.InDoubt(n, op.E)
		}
	}
	s.SkipTo(n + 1)
	if !inDoubt {
		s.GiveBack(n) // write n never ran: the next writer may take it
	}
	c.writes.note(generator)
}

// advanceTruth makes the checks that follow see the truth after the
// writes committed so far: the scale's truth advanced by one journal of
// every generator's committed writes (any set of ks, from any number of
// writers), so writes to one attribute resolve by tx. With writes in
// doubt, alt is the truth had they committed too.
func (c *cell) advanceTruth() {
	w := &c.writes
	c.seqMu.Lock()
	for g := range c.seqs {
		if cm, dt := c.seqs[g].Snapshot(); len(cm) > 0 || len(dt) > 0 {
			w.note(g)
		}
	}
	c.seqMu.Unlock()
	if len(w.order) == 0 {
		return
	}
	if c.baseTruth == nil {
		c.baseTruth = c.truth
	}
	ws := c.pc.Scale.Writes
	var doubts []string
	advance := func(withDoubt bool) (*plan.Truth, error) {
		j := writes.NewJournal()
		for _, g := range w.order {
			commits, doubt := c.writeSeq(g).Snapshot()
			for _, cm := range commits {
				j.CommitDeltas(g, cm.K, cm.E, cm.D)
			}
			if withDoubt {
				for _, cm := range doubt {
					j.CommitDeltas(g, cm.K, cm.E, cm.D)
				}
			} else {
				for _, cm := range doubt {
					doubts = append(doubts, fmt.Sprintf("write %d of %s", cm.K, g))
				}
			}
		}
		return c.baseTruth.AdvanceJournal(ws, j)
	}
	t, err := advance(false)
	if t == nil {
		c.run.fail("%s: truth after the writes: %v", c.name(), err)
		return
	}
	if err != nil {
		c.run.logf("%s: %v", c.name(), err)
	}
	c.truth, c.truthAlt, c.doubt = t, nil, ""
	if len(doubts) > 0 {
		if alt, _ := advance(true); alt != nil {
			c.truthAlt = alt
			c.doubt = strings.Join(doubts, ", ") + " failed while committing"
		}
	}
}
