package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.EvidenceCollector = (*Backend)(nil)

// WaitSampleInterval is how often a point's sessions' wait events are
// sampled from pg_stat_activity: one query on a connection of its own,
// outside the timed calls' connections. At 50 ms the sampler's queries
// took 1 to 11% of the wall time of a point on a loaded two-core
// machine; at 200 ms that is a quarter, under 2% of one core at worst
// (each point records its own as sampler_busy_share).
const WaitSampleInterval = 200 * time.Millisecond

// waitSampleQuery is one wait-event sample: the run's other active
// sessions in the database, each under its wait event or CPU:running.
// The run's sessions are those of the sampler's application_name (every
// connection of a backend has the same): another program's session in
// the database, waiting or working, is not the run's.
const waitSampleQuery = `SELECT coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running')
	FROM pg_stat_activity
	WHERE datname = current_database() AND backend_type = 'client backend'
		AND state = 'active' AND pid <> pg_backend_pid()
		AND application_name = current_setting('application_name')`

// stmtCounters are one statement's cumulative pg_stat_statements counters.
type stmtCounters struct {
	query                          string
	calls, rows                    float64
	execMs, planMs                 float64
	hit, read, tempRead, tempWrite float64
	walBytes, walRecords           float64
}

// StartEvidence snapshots this database's pg_stat_statements and the
// counts of the wait-event sampler of the run's other sessions in the
// database, starting it when no probe under way has.
func (b *Backend) StartEvidence(ctx context.Context) (drivers.EvidenceProbe, error) {
	if err := b.statementsReady(ctx); err != nil {
		return nil, err
	}
	p := &pgProbe{b: b, sampler: b.acquireSampler(ctx)}
	if err := p.Rebase(ctx); err != nil {
		b.releaseSampler(p.sampler)
		return nil, err
	}
	return p, nil
}

var _ drivers.EvidenceRebaser = (*pgProbe)(nil)

// Rebase takes the stretch's starting counters (again): the statements',
// the server's WAL and the wait sampler's, and its start time.
func (p *pgProbe) Rebase(ctx context.Context) error {
	before, err := p.b.statementCounters(ctx)
	if err != nil {
		return err
	}
	p.before, p.start = before, time.Now()
	// The server's WAL counters: unknown (no fact) where pg_stat_wal is
	// not readable, never a reason to give up the rest.
	p.walBefore, p.walErr = p.b.walCounters(ctx)
	p.waitsBefore = p.sampler.snapshot()
	return nil
}

type pgProbe struct {
	b      *Backend
	before map[int64]stmtCounters
	start  time.Time

	sampler     *waitSampler
	waitsBefore waitCounts

	walBefore walCounters
	walErr    error
}

// acquireSampler returns the sampler under way, or starts one on a
// connection of its own; each acquire is released by releaseSampler.
func (b *Backend) acquireSampler(ctx context.Context) *waitSampler {
	b.waitsMu.Lock()
	defer b.waitsMu.Unlock()
	if b.waits != nil {
		b.waits.refs++
		return b.waits
	}
	s := &waitSampler{refs: 1, counts: waitCounts{waits: map[string]int{}}, done: make(chan struct{})}
	b.waits = s
	conn, err := b.connect(ctx)
	if err != nil {
		s.counts.err = fmt.Errorf("wait sampler: %w", err)
		close(s.done)
		return s
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go s.sample(sctx, conn)
	return s
}

// releaseSampler ends s when no probe uses it any more.
func (b *Backend) releaseSampler(s *waitSampler) {
	b.waitsMu.Lock()
	s.refs--
	last := s.refs <= 0
	if last && b.waits == s {
		b.waits = nil
	}
	b.waitsMu.Unlock()
	if last {
		s.stop()
	}
}

// stopSampler ends a sampler a probe left running (its Stop never came)
// as the backend closes.
func (b *Backend) stopSampler() {
	b.waitsMu.Lock()
	s := b.waits
	b.waits = nil
	b.waitsMu.Unlock()
	if s != nil {
		s.stop()
	}
}

// waitSampler samples the run's active sessions' wait events every
// WaitSampleInterval; probes read its counts before and after their
// stretch.
type waitSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	refs   int // the probes using it, under the backend's waitsMu

	mu     sync.Mutex
	counts waitCounts
}

// waitCounts are a sampler's cumulative counts.
type waitCounts struct {
	busy     time.Duration // the sampler's queries' time: its cost on the server
	samples  int           // sampler queries made
	sessions int           // active session observations
	waits    map[string]int
	err      error
}

// stop ends the sampling and waits for it; again is a no-op.
func (s *waitSampler) stop() {
	if s.cancel != nil {
		s.cancel()
	}
	<-s.done
}

// snapshot copies the counts so far.
func (s *waitSampler) snapshot() waitCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	c.waits = make(map[string]int, len(s.counts.waits))
	for k, v := range s.counts.waits {
		c.waits[k] = v
	}
	return c
}

// sample polls pg_stat_activity until cancelled. Each active session in
// a sample counts once, under its wait event, or CPU:running when none.
func (s *waitSampler) sample(ctx context.Context, conn *pgx.Conn) {
	defer close(s.done)
	defer conn.Close(context.WithoutCancel(ctx))
	t := time.NewTicker(WaitSampleInterval)
	defer t.Stop()
	for {
		t0 := time.Now()
		rows, err := conn.Query(ctx, waitSampleQuery)
		if err == nil {
			var got []string
			for rows.Next() {
				var typ, ev string
				if err = rows.Scan(&typ, &ev); err != nil {
					break
				}
				got = append(got, typ+":"+ev)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
			s.mu.Lock()
			s.counts.busy += time.Since(t0)
			s.counts.samples++
			for _, g := range got {
				s.counts.waits[g]++
				s.counts.sessions++
			}
			s.mu.Unlock()
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.mu.Lock()
			s.counts.err = fmt.Errorf("wait sampler: %w", err)
			s.mu.Unlock()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop ends the sampling and returns the statements' deltas and the
// shares of wait events.
func (p *pgProbe) Stop(ctx context.Context) ([]drivers.Evidence, error) {
	w := p.sampler.snapshot()
	p.b.releaseSampler(p.sampler)
	after, err := p.b.statementCounters(ctx)
	if err != nil {
		return nil, err
	}
	var out []drivers.Evidence
	ids := make([]int64, 0, len(after))
	for id := range after {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		a, b := after[id], p.before[id] // a statement new since the snapshot started at zero
		if a.calls-b.calls <= 0 {
			continue
		}
		add := func(name string, v float64, unit string) {
			out = append(out, drivers.Evidence{Source: "pg_stat_statements", Query: a.query, Name: name, Value: v, Unit: unit})
		}
		add(drivers.EvidenceCalls, a.calls-b.calls, "calls")
		add(drivers.EvidenceExecMs, a.execMs-b.execMs, "ms")
		if p.b.trackPlanning(ctx) {
			add(drivers.EvidencePlanMs, a.planMs-b.planMs, "ms")
		}
		add("rows", a.rows-b.rows, "rows")
		add("shared_blks_hit", a.hit-b.hit, "blocks")
		add("shared_blks_read", a.read-b.read, "blocks")
		add("temp_blks_read", a.tempRead-b.tempRead, "blocks")
		add("temp_blks_written", a.tempWrite-b.tempWrite, "blocks")
		add("wal_records", a.walRecords-b.walRecords, "records")
		add("wal_bytes", a.walBytes-b.walBytes, "bytes")
	}
	out = append(out, p.walFacts(ctx, out)...)
	w0 := p.waitsBefore
	samples, sessions := w.samples-w0.samples, w.sessions-w0.sessions
	act := drivers.Evidence{Source: "pg_stat_activity", Name: "samples", Value: float64(samples), Unit: "samples"}
	// The sampler's own cost: the share of the stretch one of the
	// server's processes spent answering it.
	busy := drivers.Evidence{Source: "pg_stat_activity", Name: "sampler_busy_share", Value: float64(w.busy-w0.busy) / float64(time.Since(p.start)), Unit: "share"}
	// The shares below are of these: a point of short calls sees few.
	seen := drivers.Evidence{Source: "pg_stat_activity", Name: "active_observations", Value: float64(sessions), Unit: "sessions"}
	out = append(out, act, seen, busy,
		drivers.Evidence{Source: "pg_stat_activity", Name: "sample_interval_ms", Value: float64(WaitSampleInterval.Milliseconds()), Unit: "ms"})
	keys := make([]string, 0, len(w.waits))
	for k := range w.waits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if n := w.waits[k] - w0.waits[k]; n > 0 {
			out = append(out, drivers.Evidence{Source: "pg_stat_activity", Name: "wait:" + k,
				Value: float64(n) / float64(sessions), Unit: "share"})
		}
	}
	return out, w.err
}

// walCounters are pg_stat_wal's cumulative counters: the server's, as
// PostgreSQL 15 keeps WAL writes and syncs for the whole server only.
type walCounters struct {
	write, sync         float64
	writeTime, syncTime float64 // ms; counted only with track_wal_io_timing
	timing              bool    // track_wal_io_timing was on
	nextXid             float64 // the next transaction id: those assigned in a stretch are its writing transactions
}

func (b *Backend) walCounters(ctx context.Context) (walCounters, error) {
	var w walCounters
	var timing string
	err := b.withMeta(ctx, "pg_stat_wal", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT wal_write::float8, wal_sync::float8, wal_write_time, wal_sync_time,
				coalesce(current_setting('track_wal_io_timing', true), 'off'),
				pg_snapshot_xmax(pg_current_snapshot())::text::float8
			FROM pg_stat_wal`).Scan(&w.write, &w.sync, &w.writeTime, &w.syncTime, &timing, &w.nextXid)
	})
	w.timing = timing == "on"
	return w, err
}

// WALBackgroundPerSecond bounds the WAL writes and syncs a server makes
// of its own in a second: the WAL writer's (every wal_writer_delay,
// 200 ms by default), checkpoints' and autovacuum's, with room to spare.
// walShareSlack is how many the run's writing transactions may make each
// (one write and one sync each, a few more where a commit's WAL spans
// the buffers' end): another program's writes within it move a ratio by
// a quarter at most.
const (
	WALBackgroundPerSecond = 20
	walShareSlack          = 1.25
)

// walFacts are the server's WAL writes and syncs over the stretch with
// the run's own writing transactions they are attributed to. Those are
// the calls of the run's most-written statement (a transaction that
// writes runs it once; each statement's calls capped at its WAL records,
// as a read that prunes a page now and then writes a record, not one a
// call), but no more than the transaction ids the server assigned in the
// stretch (only a transaction that writes gets one). pg_stat_wal is the
// server's, so the facts are given only when the run can account for
// them: no more writes or syncs than its own writing transactions and the
// server's background allow. Beyond that another program wrote to the
// server, or a session's counters arrived late (a backend reports them
// within a second of going idle): the stretch's WAL cannot be put on the
// run, and the one fact says so (wal_unattributed).
func (p *pgProbe) walFacts(ctx context.Context, stmts []drivers.Evidence) []drivers.Evidence {
	if p.walErr != nil {
		return nil
	}
	after, err := p.b.walCounters(ctx)
	if err != nil {
		return nil
	}
	calls, records := map[string]float64{}, map[string]float64{}
	for _, e := range stmts {
		switch e.Name {
		case drivers.EvidenceCalls:
			calls[e.Query] += e.Value
		case "wal_records":
			records[e.Query] += e.Value
		}
	}
	var writes float64
	for q, c := range calls {
		writes = max(writes, min(c, records[q]))
	}
	writes = min(writes, after.nextXid-p.walBefore.nextXid)
	d := walCounters{write: after.write - p.walBefore.write, sync: after.sync - p.walBefore.sync,
		writeTime: after.writeTime - p.walBefore.writeTime, syncTime: after.syncTime - p.walBefore.syncTime}
	add := func(name string, v float64, unit string) drivers.Evidence {
		return drivers.Evidence{Source: "pg_stat_wal", Name: name, Value: v, Unit: unit}
	}
	bound := walShareSlack*writes + WALBackgroundPerSecond*(time.Since(p.start).Seconds()+1)
	if writes == 0 || d.write > bound || d.sync > bound {
		return []drivers.Evidence{add("wal_unattributed", d.write, "writes")}
	}
	out := []drivers.Evidence{
		add(drivers.EvidenceOwnWrites, writes, "calls"),
		add("wal_write", d.write, "writes"),
		add("wal_sync", d.sync, "syncs"),
	}
	if after.timing && p.walBefore.timing {
		out = append(out, add("wal_write_time", d.writeTime, "ms"), add("wal_sync_time", d.syncTime, "ms"))
	}
	return out
}

// trackPlanning reports whether pg_stat_statements times planning; when
// it does not, planning time is unknown rather than zero.
func (b *Backend) trackPlanning(ctx context.Context) bool {
	var v string
	err := b.withMeta(ctx, "track_planning", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT coalesce(current_setting('pg_stat_statements.track_planning', true), 'off')").Scan(&v)
	})
	return err == nil && v == "on"
}

// statementCounters reads this database's pg_stat_statements by queryid,
// leaving out the statistics queries themselves.
func (b *Backend) statementCounters(ctx context.Context) (map[int64]stmtCounters, error) {
	out := map[int64]stmtCounters{}
	err := b.withMeta(ctx, "pg_stat_statements", func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT queryid, query, calls, rows, total_exec_time, total_plan_time,
				shared_blks_hit, shared_blks_read, temp_blks_read, temp_blks_written, wal_records, wal_bytes
			FROM pg_stat_statements
			WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND query NOT LIKE '%pg_stat_%' AND queryid IS NOT NULL`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var s stmtCounters
			var calls, nrows, hit, read, tr, tw, wr int64
			var wal float64
			if err := rows.Scan(&id, &s.query, &calls, &nrows, &s.execMs, &s.planMs, &hit, &read, &tr, &tw, &wr, &wal); err != nil {
				return err
			}
			s.query = strings.Join(strings.Fields(s.query), " ")
			s.calls, s.rows, s.hit, s.read = float64(calls), float64(nrows), float64(hit), float64(read)
			s.tempRead, s.tempWrite, s.walRecords, s.walBytes = float64(tr), float64(tw), float64(wr), wal
			// The same text under several users or top-level flags adds up.
			prev := out[id]
			s.calls += prev.calls
			s.rows += prev.rows
			s.execMs += prev.execMs
			s.planMs += prev.planMs
			s.hit += prev.hit
			s.read += prev.read
			s.tempRead += prev.tempRead
			s.tempWrite += prev.tempWrite
			s.walRecords += prev.walRecords
			s.walBytes += prev.walBytes
			out[id] = s
		}
		return rows.Err()
	})
	return out, err
}

var _ drivers.AnalyzeExplainer = (*Backend)(nil)

// ExplainAnalyze runs sql once under EXPLAIN (ANALYZE, BUFFERS, FORMAT
// JSON) in a transaction it rolls back, so that a write leaves nothing.
func (b *Backend) ExplainAnalyze(ctx context.Context, sql string, args []any) (string, error) {
	var plan string
	err := b.withMeta(ctx, "explain analyze", func(c *pgx.Conn) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		qargs := args
		if b.protocol == ProtocolExtended {
			qargs = append([]any{pgx.QueryExecModeDescribeExec}, args...)
		}
		return tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql, qargs...).Scan(&plan)
	})
	return plan, err
}
