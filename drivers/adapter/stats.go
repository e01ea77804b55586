package adapter

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// stats is the backend's per-statement account: calls, the engine's
// round trip through the pipe, and the time the adapter says it spent in
// the store, so a reader sees what the pipe costs. The counters only
// grow; a point's share is a difference of two snapshots, for its
// statements log (drivers.StatementStats) and its evidence
// (drivers.EvidenceCollector), which therefore never disturb each other.
type stats struct {
	mu   sync.Mutex
	by   map[string]*stmtStats
	ord  []string
	base map[string]counts // the statements log's snapshot at its reset
}

type stmtStats struct {
	sql       string
	calls     atomic.Int64
	roundTrip atomic.Int64 // ns
	timed     atomic.Int64 // calls with a store time
	store     atomic.Int64 // ns
	hist      [histBuckets]atomic.Int64
}

// The store times' histogram: 16 buckets per power of two of
// nanoseconds, so a quantile read from it is within 1/32 of the value.
const (
	histSub     = 4
	histBuckets = (64 - histSub) << histSub
)

// bucketOf is the histogram bucket of ns.
func bucketOf(ns int64) int {
	if ns < 1<<histSub {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - histSub - 1 // ns>>e is in [16, 32)
	return (e+1)<<histSub + int(uint64(ns)>>e) - 1<<histSub
}

// bucketMid is the middle of bucket i's values, in ns.
func bucketMid(i int) float64 {
	if i < 1<<histSub {
		return float64(i)
	}
	e := i>>histSub - 1
	low := int64(i&(1<<histSub-1)+1<<histSub) << e
	return float64(low) + float64(int64(1)<<e)/2
}

func newStats() *stats { return &stats{by: map[string]*stmtStats{}} }

func (s *stats) of(sql string) *stmtStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.by[sql]
	if st == nil {
		st = &stmtStats{sql: sql}
		s.by[sql] = st
		s.ord = append(s.ord, sql)
	}
	return st
}

func (st *stmtStats) add(rt time.Duration, storeUS *float64) {
	st.calls.Add(1)
	st.roundTrip.Add(int64(rt))
	if storeUS != nil {
		ns := int64(*storeUS * 1e3)
		st.timed.Add(1)
		st.store.Add(ns)
		st.hist[bucketOf(ns)].Add(1)
	}
}

// counts is one statement's counters at one moment, or between two.
type counts struct {
	calls, roundTrip, timed, store int64
	hist                           []int64
}

func (st *stmtStats) read() counts {
	c := counts{calls: st.calls.Load(), roundTrip: st.roundTrip.Load(), timed: st.timed.Load(), store: st.store.Load(),
		hist: make([]int64, histBuckets)}
	for i := range st.hist {
		c.hist[i] = st.hist[i].Load()
	}
	return c
}

func (c counts) minus(b counts) counts {
	d := counts{calls: c.calls - b.calls, roundTrip: c.roundTrip - b.roundTrip, timed: c.timed - b.timed, store: c.store - b.store,
		hist: make([]int64, len(c.hist))}
	for i := range c.hist {
		d.hist[i] = c.hist[i]
		if i < len(b.hist) {
			d.hist[i] -= b.hist[i]
		}
	}
	return d
}

// storeQuantile is the q-quantile of the store times counted, in ns.
func (c counts) storeQuantile(q float64) float64 {
	rank := int64(math.Ceil(q * float64(c.timed)))
	rank = max(rank, 1)
	var seen int64
	for i, n := range c.hist {
		if seen += n; seen >= rank {
			return bucketMid(i)
		}
	}
	return math.NaN()
}

// snapshot is every statement's counters now, by its text, in the order
// the statements were first prepared.
func (s *stats) snapshot() ([]string, map[string]counts) {
	s.mu.Lock()
	ord := append([]string(nil), s.ord...)
	sts := make([]*stmtStats, len(ord))
	for i, sql := range ord {
		sts[i] = s.by[sql]
	}
	s.mu.Unlock()
	out := make(map[string]counts, len(ord))
	for i, sql := range ord {
		out[sql] = sts[i].read()
	}
	return ord, out
}

// ResetStatementStats implements drivers.StatementStats: the statements
// log counts from here.
func (b *backend) ResetStatementStats(ctx context.Context) error {
	_, now := b.stats.snapshot()
	b.stats.mu.Lock()
	b.stats.base = now
	b.stats.mu.Unlock()
	b.timeoutsBase.Store(b.timeouts.Load())
	b.restartsBase.Store(b.restarts.Load())
	return nil
}

// TopStatements implements drivers.StatementStats: per statement since
// the reset, calls, mean round trip, mean time in the store where the
// adapter reports it, and the pipe's share (round trip minus store time).
func (b *backend) TopStatements(ctx context.Context, n int) (string, error) {
	ord, now := b.stats.snapshot()
	b.stats.mu.Lock()
	base := b.stats.base
	b.stats.mu.Unlock()
	type row struct {
		sql string
		c   counts
	}
	var all []row
	for _, sql := range ord {
		if c := now[sql].minus(base[sql]); c.calls > 0 {
			all = append(all, row{sql, c})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].c.roundTrip > all[j].c.roundTrip })
	if n > 0 && len(all) > n {
		all = all[:n]
	}
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls\tround_trip_us\tstore_us\tpipe_us\tstatement")
	for _, r := range all {
		rt := float64(r.c.roundTrip) / float64(r.c.calls) / 1e3
		store, pipe := "-", "-"
		if r.c.timed == r.c.calls {
			s := float64(r.c.store) / float64(r.c.timed) / 1e3
			store, pipe = fmt.Sprintf("%.1f", s), fmt.Sprintf("%.1f", rt-s)
		}
		fmt.Fprintf(w, "%d\t%.1f\t%s\t%s\t%s\n", r.c.calls, rt, store, pipe, oneLine(r.sql, 80))
	}
	w.Flush()
	fmt.Fprintf(&sb, "adapter calls cut by probe_s: %d; fresh adapters started for them: %d\n",
		b.timeouts.Load()-b.timeoutsBase.Load(), b.restarts.Load()-b.restartsBase.Load())
	return sb.String(), nil
}

// oneLine is sql on one line, cut at n characters when n > 0.
func oneLine(sql string, n int) string {
	s := strings.Join(strings.Fields(sql), " ")
	if n > 0 && len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
