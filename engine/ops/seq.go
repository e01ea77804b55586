package ops

import (
	"sync"
	"sync/atomic"
)

// Seq numbers the writes of one generator in a cell and records
// which committed. Write k is handed out once, to whichever client asks
// next, and is a pure function of (seed, k) wherever it runs; the truth
// after the writes follows exactly the ks that committed.
type Seq struct {
	next atomic.Int64 // the next k to hand out

	mu      sync.Mutex
	commits []Commit     // in commit order
	doubt   []Commit     // COMMIT failed without a contention class: outcome unknown
	failed  atomic.Int64 // writes given up (their k is never reused)
	done    ackWindow    // inserts: the ks finished, for the visible count
	// visible is done.base, read without the lock by every parameter
	// draw over the inserted kind: the entities inserted so far whose
	// predecessors all finished.
	visible atomic.Int64
}

// Commit is one committed write: its number K and the entity E it wrote;
// for a transaction, D the delta each step added.
type Commit struct {
	K, E int64
	D    []int64
}

// CommitDeltas records that transaction write k committed, its steps
// adding d.
func (s *Seq) CommitDeltas(k, e int64, d []int64) {
	s.mu.Lock()
	s.commits = append(s.commits, Commit{K: k, E: e, D: d})
	s.done.mark(k)
	s.visible.Store(s.done.base)
	s.mu.Unlock()
}

// InDoubtDeltas is InDoubt for a transaction whose steps would add d.
func (s *Seq) InDoubtDeltas(k, e int64, d []int64) {
	s.mu.Lock()
	s.doubt = append(s.doubt, Commit{K: k, E: e, D: d})
	s.done.mark(k)
	s.visible.Store(s.done.base)
	s.mu.Unlock()
}

// Commit records that write k committed, writing entity e.
func (s *Seq) Commit(k, e int64) {
	s.mu.Lock()
	s.commits = append(s.commits, Commit{K: k, E: e})
	s.done.mark(k)
	s.visible.Store(s.done.base)
	s.mu.Unlock()
}

// Fail records that write k was given up; its k is never reused.
func (s *Seq) Fail(k int64) {
	s.mu.Lock()
	s.failed.Add(1)
	s.done.mark(k)
	s.visible.Store(s.done.base)
	s.mu.Unlock()
}

// InDoubt records that write k's COMMIT failed with no contention
// class: whether it committed is unknown.
func (s *Seq) InDoubt(k, e int64) {
	s.mu.Lock()
	s.doubt = append(s.doubt, Commit{K: k, E: e})
	s.done.mark(k)
	s.visible.Store(s.done.base)
	s.mu.Unlock()
}

// Snapshot returns the commits so far and those in doubt.
func (s *Seq) Snapshot() (commits, doubt []Commit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Commit(nil), s.commits...), append([]Commit(nil), s.doubt...)
}

// ackWindow tracks which ks finished (committed, failed or in doubt)
// beyond the first one still running, as YCSB's acknowledged counter
// does: limit is the number of leading ks all finished, so an entity
// inserted by a write below it exists or never will.
type ackWindow struct {
	base  int64          // every k below base is finished
	ahead map[int64]bool // finished ks at or above base
}

func (w *ackWindow) mark(k int64) {
	if k < w.base {
		return
	}
	if w.ahead == nil {
		w.ahead = map[int64]bool{}
	}
	w.ahead[k] = true
	for w.ahead[w.base] {
		delete(w.ahead, w.base)
		w.base++
	}
}

// Next hands out the next write number.
func (s *Seq) Next() int64 { return s.next.Add(1) - 1 }

// Visible is how many leading writes all finished: for an inserting
// generator, the inserted entities a parameter may draw.
func (s *Seq) Visible() int64 { return s.visible.Load() }

// Failed is how many writes were given up.
func (s *Seq) Failed() int64 { return s.failed.Load() }

// Peek is the number Next would hand out.
func (s *Seq) Peek() int64 { return s.next.Load() }

// DropFrom forgets every commit and doubt numbered from or above, for a
// writer that records its writes again.
func (s *Seq) DropFrom(from int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := func(l []Commit) []Commit {
		out := l[:0]
		for _, c := range l {
			if c.K < from {
				out = append(out, c)
			}
		}
		return out
	}
	s.commits, s.doubt = keep(s.commits), keep(s.doubt)
}

// SkipTo makes Next hand out n or later.
func (s *Seq) SkipTo(n int64) {
	for {
		next := s.next.Load()
		if next >= n || s.next.CompareAndSwap(next, n) {
			return
		}
	}
}

// GiveBack returns write n to be handed out again when it is the last one
// handed out and never ran.
func (s *Seq) GiveBack(n int64) { s.next.CompareAndSwap(n+1, n) }
