package adapter

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// stats is the backend's per-statement account of a point: calls, the
// engine's round trip through the pipe, and the time the adapter says it
// spent in the store, so a reader sees what the pipe costs
// (drivers.StatementStats: statements.txt beside the point).
type stats struct {
	mu  sync.Mutex
	by  map[string]*stmtStats
	ord []string
}

type stmtStats struct {
	sql       string
	calls     atomic.Int64
	roundTrip atomic.Int64 // ns
	timed     atomic.Int64 // calls with a store time
	store     atomic.Int64 // ns
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
		st.timed.Add(1)
		st.store.Add(int64(*storeUS * 1e3))
	}
}

// ResetStatementStats implements drivers.StatementStats.
func (b *backend) ResetStatementStats(ctx context.Context) error {
	b.stats.mu.Lock()
	defer b.stats.mu.Unlock()
	for _, st := range b.stats.by {
		st.calls.Store(0)
		st.roundTrip.Store(0)
		st.timed.Store(0)
		st.store.Store(0)
	}
	return nil
}

// TopStatements implements drivers.StatementStats: per statement, calls,
// mean round trip, mean time in the store where the adapter reports it,
// and the pipe's share (round trip minus store time).
func (b *backend) TopStatements(ctx context.Context, n int) (string, error) {
	b.stats.mu.Lock()
	all := make([]*stmtStats, 0, len(b.stats.by))
	for _, sql := range b.stats.ord {
		if st := b.stats.by[sql]; st.calls.Load() > 0 {
			all = append(all, st)
		}
	}
	b.stats.mu.Unlock()
	sort.SliceStable(all, func(i, j int) bool { return all[i].roundTrip.Load() > all[j].roundTrip.Load() })
	if n > 0 && len(all) > n {
		all = all[:n]
	}
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls\tround_trip_us\tstore_us\tpipe_us\tstatement")
	for _, st := range all {
		calls := st.calls.Load()
		rt := float64(st.roundTrip.Load()) / float64(calls) / 1e3
		store, pipe := "-", "-"
		if tm := st.timed.Load(); tm == calls {
			s := float64(st.store.Load()) / float64(tm) / 1e3
			store, pipe = fmt.Sprintf("%.1f", s), fmt.Sprintf("%.1f", rt-s)
		}
		sql := strings.Join(strings.Fields(st.sql), " ")
		if len(sql) > 80 {
			sql = sql[:80] + "..."
		}
		fmt.Fprintf(w, "%d\t%.1f\t%s\t%s\t%s\n", calls, rt, store, pipe, sql)
	}
	w.Flush()
	fmt.Fprintf(&sb, "adapter calls cut by probe_s: %d; fresh adapters started for them: %d\n", b.timeouts.Load(), b.restarts.Load())
	return sb.String(), nil
}
