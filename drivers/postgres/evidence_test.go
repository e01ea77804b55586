package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
)

// find returns the value of the evidence named name whose query contains
// q ("" for session-wide facts), and whether there is one.
func find(ev []drivers.Evidence, q, name string) (float64, bool) {
	for _, e := range ev {
		if e.Name == name && (q == "" && e.Query == "" || q != "" && strings.Contains(e.Query, q)) {
			return e.Value, true
		}
	}
	return 0, false
}

// A stretch's statement counters are deltas over it: the calls made
// before the probe started are not counted, those during it are, each
// with its execution time, blocks and WAL.
func TestEvidenceStatementDeltas(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], map[string]string{"pg_stat_statements.track_planning": "on"})
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"CREATE TABLE ev_t (k int PRIMARY KEY, v text)", "INSERT INTO ev_t SELECT g, 'x' FROM generate_series(1, 1000) g"} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.Prepare(ctx, "SELECT v FROM ev_t WHERE k = $1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	call := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := st.Query(ctx, []any{int64(i%1000 + 1)}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.ResetStatementStats(ctx); err != nil {
		t.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	call(7) // before the probe: not the stretch's
	p, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	call(50)
	if err := s.Exec(ctx, "UPDATE ev_t SET v = 'y' WHERE k <= 100"); err != nil {
		t.Fatal(err)
	}
	// The stretch outlasts a sample interval: a quiet machine makes the
	// calls above in a few milliseconds, before the sampler's first tick.
	time.Sleep(WaitSampleInterval * 3 / 2)
	ev, err := p.Stop(ctx)
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if n, _ := find(ev, "FROM ev_t WHERE k", drivers.EvidenceCalls); n != 50 {
		t.Errorf("calls of the lookup = %v, want 50 (the 7 before the probe left out)\n%v", n, ev)
	}
	if ms, ok := find(ev, "FROM ev_t WHERE k", drivers.EvidenceExecMs); !ok || ms <= 0 {
		t.Errorf("exec_ms of the lookup = %v, %v; want > 0", ms, ok)
	}
	if _, ok := find(ev, "FROM ev_t WHERE k", drivers.EvidencePlanMs); !ok {
		t.Errorf("no plan_ms with track_planning on:\n%v", ev)
	}
	if hit, _ := find(ev, "FROM ev_t WHERE k", "shared_blks_hit"); hit < 50 {
		t.Errorf("shared_blks_hit of 50 index lookups = %v, want at least 50", hit)
	}
	if wal, _ := find(ev, "UPDATE ev_t", "wal_bytes"); wal <= 0 {
		t.Errorf("wal_bytes of an UPDATE of 100 rows = %v, want > 0", wal)
	}
	if n, ok := find(ev, "", "samples"); !ok || n < 1 {
		t.Errorf("wait samples = %v, %v; want at least 1", n, ok)
	}
	if v, ok := find(ev, "", "sampler_busy_share"); !ok || v <= 0 || v >= 1 {
		t.Errorf("sampler_busy_share = %v, %v; want in (0, 1)", v, ok)
	}
}

// Without track_planning the planning time is not reported (unknown),
// never as zero.
func TestEvidenceNoPlanningWithoutTrackPlanning(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], map[string]string{"pg_stat_statements.track_planning": "off"})
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := b.ResetStatementStats(ctx); err != nil {
		t.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	p, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "SELECT count(*) FROM pg_class"); err != nil {
		t.Fatal(err)
	}
	ev, err := p.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(ev, "pg_class", drivers.EvidenceExecMs); !ok {
		t.Fatalf("no exec_ms for the statement:\n%v", ev)
	}
	if v, ok := find(ev, "pg_class", drivers.EvidencePlanMs); ok {
		t.Errorf("plan_ms = %v reported with track_planning off", v)
	}
}

// A session blocked on a row lock another transaction holds is sampled
// under its wait event: the waits name the lock.
func TestEvidenceSamplesLockWaits(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	holder, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	waiter, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	for _, q := range []string{"CREATE TABLE ev_l (k int PRIMARY KEY, v int)", "INSERT INTO ev_l VALUES (1, 0)",
		"BEGIN", "UPDATE ev_l SET v = 1 WHERE k = 1"} {
		if err := holder.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.ResetStatementStats(ctx); err != nil {
		t.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	p, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- waiter.Exec(ctx, "UPDATE ev_l SET v = 2 WHERE k = 1") }()
	// Blocked until the holder commits: long enough for several samples
	// on a busy machine.
	time.Sleep(10 * WaitSampleInterval)
	if err := holder.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ev, err := p.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lock float64
	for _, e := range ev {
		if strings.HasPrefix(e.Name, "wait:Lock:") {
			lock += e.Value
		}
	}
	if n, _ := find(ev, "", "active_observations"); n < 1 {
		t.Errorf("active_observations = %v, want the blocked session seen", n)
	}
	if lock < 0.5 {
		t.Errorf("share of samples waiting on a lock = %v, want most of them:\n%v", lock, ev)
	}
}

// Only the run's sessions are sampled: a session of another program in
// the database (another application_name), however long it waits, is
// not counted; one of the run's is.
func TestEvidenceSamplesOnlyTheRunsSessions(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	if err := b.ResetStatementStats(ctx); err != nil {
		t.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	cfg := b.connCfg.Copy()
	cfg.RuntimeParams = map[string]string{"application_name": "someone-else"}
	other, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	own, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	p, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Both sleep (wait Timeout:PgSleep) for several samples.
	sleep := fmt.Sprintf("SELECT pg_sleep(%f)", (10 * WaitSampleInterval).Seconds())
	done := make(chan error, 1)
	go func() { _, err := other.Exec(ctx, sleep); done <- err }()
	if err := own.Exec(ctx, sleep); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ev, err := p.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	samples, _ := find(ev, "", "samples")
	seen, _ := find(ev, "", "active_observations")
	// Each sample sees the run's sleeping session, never the other one
	// (a sample or two at the edges may miss the run's).
	if seen > samples || seen < samples/2 {
		t.Errorf("active_observations = %v over %v samples, want one session a sample:\n%v", seen, samples, ev)
	}
	if v, _ := find(ev, "", "wait:Timeout:PgSleep"); v < 0.5 {
		t.Errorf("share waiting in pg_sleep = %v, want most:\n%v", v, ev)
	}
}

// The analyzed plan has actual rows and buffers, and a write it runs is
// rolled back.
func TestExplainAnalyzeRollsBack(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"CREATE TABLE ev_x (k int PRIMARY KEY, v int)", "INSERT INTO ev_x VALUES (1, 10)"} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := b.ExplainAnalyze(ctx, "SELECT v FROM ev_x WHERE k = $1", []any{int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Actual Rows": 1`, `"Shared Hit Blocks"`} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %s:\n%s", want, plan)
		}
	}
	if _, err := b.ExplainAnalyze(ctx, "UPDATE ev_x SET v = 99 WHERE k = $1", []any{int64(1)}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Prepare(ctx, "SELECT v FROM ev_x WHERE k = 1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0][0] != int64(10) {
		t.Errorf("after an analyzed UPDATE the row holds %v, want 10", rows)
	}
}

// The server's WAL writes and syncs over a stretch are put on the run's
// own writing transactions when it can account for them: a commit that
// waits for its flush (synchronous_commit on) makes one sync a write, one
// that does not leaves them to the WAL writer; another database's
// writes in the stretch make the WAL the server's, not the run's.
func TestEvidenceWALFlushesPerWrite(t *testing.T) {
	cases := []struct {
		name    string
		sync    string
		foreign int     // autocommit writes in another database during the stretch
		min     float64 // wal_sync per own write, at least
		max     float64 // and at most; attributed false: wal_unattributed instead
		attrib  bool
	}{
		{"each commit flushes", "on", 0, 0.8, 1.3, true},
		{"commits leave the flush to the WAL writer", "off", 0, 0, 0.5, true},
		{"another database writes beside the run", "on", 400, 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			b := openTest(t, variants[0], map[string]string{"synchronous_commit": tc.sync})
			setup, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"CREATE TABLE wal_t (k int PRIMARY KEY, v int)", "INSERT INTO wal_t SELECT g, 0 FROM generate_series(1, 100) g"} {
				if err := setup.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			setup.Close()
			other, err := pgx.Connect(ctx, testDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close(context.Background())
			// Another program may write to a shared server (the tests of
			// other packages do): then the stretch is tried again.
			for try := 0; ; try++ {
				p, err := b.StartEvidence(ctx)
				if err != nil {
					t.Skipf("pg_stat_statements is not available on this server: %v", err)
				}
				// The writes' session ends before the stretch does, as a
				// point's do: a backend reports its WAL counters as it exits.
				base := sessionsIn(t, other, b.database)
				s, err := b.Session(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 200; i++ {
					if err := s.Exec(ctx, fmt.Sprintf("UPDATE wal_t SET v = v + 1 WHERE k = %d", i%100+1)); err != nil {
						t.Fatal(err)
					}
				}
				if tc.foreign > 0 {
					writeElsewhere(t, other, tc.foreign)
				}
				s.Close()
				waitSessionsGone(t, other, b.database, base)
				ev, err := p.Stop(ctx)
				if err != nil {
					t.Fatalf("Stop: %v", err)
				}
				writes, attributed := find(ev, "", drivers.EvidenceOwnWrites)
				_, unattributed := find(ev, "", "wal_unattributed")
				if attributed == unattributed {
					t.Fatalf("own_writes given %v, wal_unattributed given %v: want one\n%v", attributed, unattributed, ev)
				}
				if !tc.attrib {
					if attributed {
						t.Errorf("the stretch's WAL put on the run's %v writes beside %d of another database's", writes, tc.foreign)
					}
					return
				}
				if unattributed {
					if try < 3 {
						continue
					}
					t.Skip("another program kept writing to the server: the WAL could not be put on the run")
				}
				if writes != 200 {
					t.Errorf("own writes = %v, want the 200 UPDATEs", writes)
				}
				syncs, _ := find(ev, "", "wal_sync")
				if per := syncs / writes; per < tc.min || per > tc.max {
					t.Errorf("WAL syncs per write with synchronous_commit %s = %.2f, want %.1f to %.1f", tc.sync, per, tc.min, tc.max)
				}
				return
			}
		})
	}
}

// sessionsIn counts the client sessions connected to database, c's aside.
func sessionsIn(t *testing.T, c *pgx.Conn, database string) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, database).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitSessionsGone waits until no more than base client sessions are
// connected to database: until the sessions closed have exited and so
// reported their counters. Bounded.
func waitSessionsGone(t *testing.T, c *pgx.Conn, database string, base int) {
	t.Helper()
	for i := 0; i < 100 && sessionsIn(t, c, database) > base; i++ {
		time.Sleep(20 * time.Millisecond)
	}
}

// writeElsewhere makes n writing transactions in another database of
// the server (one of the test's own), on a session that ends before it
// returns (watched from watcher), as another program's writes would.
func writeElsewhere(t *testing.T, watcher *pgx.Conn, n int) {
	t.Helper()
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	base := sessionsIn(t, watcher, b.database)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Exec(ctx, "CREATE TABLE wal_other (k int)"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := s.Exec(ctx, "INSERT INTO wal_other VALUES (1)"); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	waitSessionsGone(t, watcher, b.database, base)
}

// A probe started inside another's stretch (a capacity probe inside its
// point) reads the one sampler under way: one sampling connection on the
// server, each probe's counts its own stretch's, and none left running
// after both stop.
func TestEvidenceNestedProbesShareTheSampler(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	if err := b.ResetStatementStats(ctx); err != nil {
		t.Skipf("pg_stat_statements is not available on this server: %v", err)
	}
	watch, err := pgx.Connect(ctx, testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(context.Background())
	samplers := func() int {
		var n int
		if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%coalesce(wait_event_type%'`, b.database).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	outer, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(WaitSampleInterval * 2)
	inner, err := b.StartEvidence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(WaitSampleInterval * 3 / 2)
	if n := samplers(); n != 1 {
		t.Errorf("%d sampling connections with two probes under way, want 1", n)
	}
	innerEv, err := inner.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(WaitSampleInterval * 2)
	outerEv, err := outer.Stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := find(innerEv, "", "samples")
	out, _ := find(outerEv, "", "samples")
	if in < 1 || out < in+2 {
		t.Errorf("samples: inner %v, outer %v; want the inner's stretch's only (at least 1) and the outer's more by its own (at least 2 more)", in, out)
	}
	b.waitsMu.Lock()
	left := b.waits
	b.waitsMu.Unlock()
	if left != nil {
		t.Error("a sampler left running after both probes stopped")
	}
	for i := 0; i < 50 && samplers() > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if n := samplers(); n != 0 {
		t.Errorf("%d sampling connections after both probes stopped", n)
	}
}
