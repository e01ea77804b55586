package writes

import (
	"fmt"
	"sort"
	"sync"
)

// Journal records which writes committed: per generator, each committed
// k with the entity it wrote. With many clients and several writers the
// committed writes are any set of ks, in any order, not a prefix. The
// entity is recorded rather than recomputed because an engine may choose
// an update's target at run time. Memory: 16 bytes per committed write
// (a million writes, 16 MB). Safe for concurrent use.
type Journal struct {
	mu    sync.Mutex
	gens  map[string][]Committed
	order []string
}

// Committed is one committed write: number K of its generator, entity E.
// D, for a transaction, is the delta each step added (0 for a step that
// does not add): a delta computed at run time from what the transaction
// read is known only from here.
type Committed struct {
	K, E int64
	D    []int64
}

// NewJournal returns an empty journal.
func NewJournal() *Journal { return &Journal{gens: map[string][]Committed{}} }

// Commit records that write k of generator, to entity e, committed.
// Recording one write twice is harmless.
func (j *Journal) Commit(generator string, k, e int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.note(generator)
	j.gens[generator] = append(j.gens[generator], Committed{K: k, E: e})
}

// CommitDeltas records that transaction write k committed, its steps
// adding d (one per step).
func (j *Journal) CommitDeltas(generator string, k, e int64, d []int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.note(generator)
	j.gens[generator] = append(j.gens[generator], Committed{K: k, E: e, D: d})
}

// note registers generator (j.mu held).
func (j *Journal) note(generator string) {
	if _, ok := j.gens[generator]; !ok {
		j.gens[generator] = nil
		j.order = append(j.order, generator)
	}
}

// Generators lists the generators recorded, in the order first recorded.
func (j *Journal) Generators() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.order...)
}

// Committed returns generator's committed writes sorted by k (a copy).
func (j *Journal) Committed(generator string) []Committed {
	j.mu.Lock()
	out := append([]Committed(nil), j.gens[generator]...)
	j.mu.Unlock()
	sort.Slice(out, func(a, b int) bool { return out[a].K < out[b].K })
	return out
}

// Len is the number of writes recorded.
func (j *Journal) Len() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	var n int64
	for _, cs := range j.gens {
		n += int64(len(cs))
	}
	return n
}

// CommitPrefix records writes 0..n-1 of generator name, each to the
// entity it draws: one writer's commits, in order.
func (w *Writes) CommitPrefix(j *Journal, name string, n int64) error {
	g, ok := w.gens[name]
	if !ok {
		return fmt.Errorf("datagen: no write %q declared", name)
	}
	if w.txs[name] != nil {
		return fmt.Errorf("datagen: write %q is a transaction: its journal records each commit's deltas", name)
	}
	if n > 0 {
		if err := w.checkK(g, n-1); err != nil {
			return fmt.Errorf("datagen: %w", err)
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.note(name)
	cs := j.gens[name]
	for k := int64(0); k < n; k++ {
		cs = append(cs, Committed{K: k, E: w.entityOf(g, k)})
	}
	j.gens[name] = cs
	return nil
}

// entityOf is the entity write k of g writes.
func (w *Writes) entityOf(g *writeGen, k int64) int64 {
	if g.decl.Insert {
		return g.base + g.count + k
	}
	return g.target.One(k).Int
}
