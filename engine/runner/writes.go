package runner

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// committedWrites is what a cell knows of the writes run against its
// store since it was loaded: per write generator, how many committed (in
// order), and whether the next one is in doubt.
type committedWrites struct {
	order   []string
	n       map[string]int64
	inDoubt map[string]bool
}

var _ kind.WriteEnv = (*pointEnv)(nil)

func (e *pointEnv) Driver() string { return e.c.pc.Backend.Driver }

func (e *pointEnv) Session(ctx context.Context) (drivers.Session, error) {
	if e.c.be == nil {
		return nil, fmt.Errorf("the store is closed")
	}
	return e.c.be.Session(ctx)
}

func (e *pointEnv) Statements(query string) ([]kind.Statement, error) {
	q := e.c.pc.Queries[query]
	if q == nil {
		return nil, fmt.Errorf("no query %q", query)
	}
	var out []kind.Statement
	for _, text := range sqltext.Statements(q.SQL) {
		b, err := sqltext.Bind(text, e.c.be.Placeholder)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", query, err)
		}
		out = append(out, kind.Statement{SQL: b.SQL, Names: b.Names})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("query %s holds no statement", query)
	}
	return out, nil
}

func (e *pointEnv) Writes() *datagen.Writes { return e.c.pc.Scale.Writes }

func (e *pointEnv) NextWrite(generator string) int64 {
	n := e.c.writes.n[generator]
	e.c.seqMu.Lock()
	defer e.c.seqMu.Unlock()
	if s := e.c.seqs[generator]; s != nil {
		n = max(n, s.next.Load())
	}
	return n
}

func (e *pointEnv) Log(name, format string, args ...any) { e.c.run.logTo(name, format, args...) }

func (e *pointEnv) Committed(generator string, n int64, inDoubt bool) {
	w := &e.c.writes
	if w.n == nil {
		w.n, w.inDoubt = map[string]int64{}, map[string]bool{}
	}
	if _, seen := w.n[generator]; !seen {
		w.order = append(w.order, generator)
	}
	w.n[generator], w.inDoubt[generator] = n, inDoubt
}

// advanceTruth makes the checks that follow see the truth after the
// writes committed so far: the scale's truth advanced by one journal of
// every generator's committed writes, so writes of several generators
// to one attribute resolve by tx. With a write in doubt, alt is the truth
// had it committed too.
func (c *cell) advanceTruth() {
	w := &c.writes
	if len(w.order) == 0 {
		return
	}
	if c.baseTruth == nil {
		c.baseTruth = c.truth
	}
	writes := c.pc.Scale.Writes
	advance := func(extra string) (*plan.Truth, error) {
		j := datagen.NewJournal()
		for _, g := range w.order {
			n := w.n[g]
			if g == extra {
				n++
			}
			if err := writes.CommitPrefix(j, g, n); err != nil {
				return nil, err
			}
		}
		return c.baseTruth.AdvanceJournal(writes, j)
	}
	t, err := advance("")
	if t == nil {
		c.run.fail("%s: truth after the writes: %v", c.name(), err)
		return
	}
	if err != nil {
		c.run.logf("%s: %v", c.name(), err)
	}
	c.truth, c.truthAlt, c.doubt = t, nil, ""
	for _, g := range w.order {
		if w.inDoubt[g] {
			if alt, _ := advance(g); alt != nil {
				c.truthAlt = alt
				c.doubt = fmt.Sprintf("write %d of %s failed while committing", w.n[g], g)
			}
		}
	}
}
