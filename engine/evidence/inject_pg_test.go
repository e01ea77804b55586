package evidence_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// Injected causes on PostgreSQL that need more than a setting of the
// backend: a cold cache, a row lock held by another transaction,
// synchronous_commit, a CPU hog beside the database. Each is an A/B of
// the quickstart's scenarios whose explanation must name the cause first
// and blame no other; no timing is asserted.

// pgOverride is a backend override naming the database the run creates
// (or reuses) and its settings.
func pgOverride(database string, settings string) map[string]string {
	return map[string]string{"pg_override.hcl": "backend \"postgres\" {\n  database = \"" + database + "\"\n  settings = { " + settings + " }\n}\n"}
}

func pgVars(dsn string, extra ...config.VarArg) []config.VarArg {
	return append([]config.VarArg{{Name: "backends", Value: `["postgres"]`}, {Name: "pg_dsn", Value: dsn}}, extra...)
}

// sharedPG is the shared server's DSN, or a skip.
func sharedPG(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset")
	}
	return dsn
}

// testDB names a database of the test's own on a server; it is dropped
// when the test ends.
func testDB(t *testing.T, dsn, what string) string {
	db := fmt.Sprintf("mentat_why_%s_%d_%d", what, os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() { dropPG(t, dsn, db) })
	return db
}

// ownCluster starts a throwaway PostgreSQL cluster with scripts/pg.sh,
// removed when the test ends: a test that restarts or reconfigures the
// server must not do it to the shared one. It returns the DSN and the
// environment that names the cluster to pg.sh.
func ownCluster(t *testing.T, sharedBuffers string) (string, []string) {
	t.Helper()
	// Not t.TempDir(): as root the server runs as postgres, which must
	// enter the directory.
	dir, err := os.MkdirTemp("", "mentat-why-pg-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "MENTAT_SPEC_PG_DIR="+dir, "MENTAT_SPEC_PG_SHARED_BUFFERS="+sharedBuffers, "MENTAT_SPEC_PG_MAX_WAL_SIZE=256MB")
	script := filepath.Join(spectest.Root(), "scripts", "pg.sh")
	var stderr bytes.Buffer
	cmd := exec.Command(script, "up")
	cmd.Env, cmd.Stderr = env, &stderr
	out, err := cmd.Output()
	t.Cleanup(func() {
		down := exec.Command(script, "down")
		down.Env = env
		if b, err := down.CombinedOutput(); err != nil {
			t.Errorf("pg.sh down: %v: %s", err, b)
		}
		os.RemoveAll(dir) // pg.sh removes it; an up that failed early may not have made it its own
	})
	if err != nil {
		if strings.Contains(stderr.String(), "not found") {
			t.Skipf("no PostgreSQL server binaries to start a cluster of the test's own: %s", strings.TrimSpace(stderr.String()))
		}
		t.Fatalf("pg.sh up: %v: %s", err, stderr.String())
	}
	return strings.TrimSpace(string(out)), env
}

// pgExec runs statements on database of the server at dsn.
func pgExec(t *testing.T, dsn, database string, stmts ...string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if database != "" {
		cfg.Database = database
	}
	ctx := context.Background()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, s := range stmts {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// firstNames asserts that reasons' first names one of want and that no
// reason blames a cause of blamed.
func firstNames(t *testing.T, reasons []string, want []string, blamed ...string) {
	t.Helper()
	if len(reasons) == 0 {
		t.Fatalf("no evidence moved; want first one of %q", want)
	}
	ok := false
	for _, w := range want {
		ok = ok || strings.Contains(reasons[0], w)
	}
	if !ok {
		t.Errorf("first reason %q names none of %q", reasons[0], want)
	}
	for _, r := range reasons {
		for _, b := range blamed {
			if strings.HasPrefix(r, b) {
				t.Errorf("reason %q blames %q", r, b)
			}
		}
	}
}

// TestInjectedColdCache: the same store read by the same scenario, warm
// in a shared_buffers that holds it (A), then after a restart with a
// shared_buffers smaller than what one call reads (B): the cache is the
// only thing changed (B reuses A's store, no reload), so blocks read
// instead of hit must come first. q3 at xs reads about 68 pages (544 kB)
// a call: 1MB (128 pages) still holds them after the point's warmup (and
// the evidence counts the timed calls only), so B's cache is 256kB (32
// pages, shared with the catalog), which every call overflows.
// The restart and the setting are of a cluster of the test's own.
func TestInjectedColdCache(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	dsn, env := ownCluster(t, "128MB")
	db := "mentat_why_cold"
	ov := pgOverride(db, `work_mem = "64MB"`)
	// q3 reads every issue's state: many pages per call, all of them in
	// shared_buffers after the load.
	oldRun := runScenario(t, "aggregate", nil, ov, pgVars(dsn)...)
	pgExec(t, dsn, "", "ALTER SYSTEM SET shared_buffers = '256kB'")
	restart := exec.Command(filepath.Join(spectest.Root(), "scripts", "pg.sh"), "restart")
	restart.Env = env
	if b, err := restart.CombinedOutput(); err != nil {
		t.Fatalf("pg.sh restart: %v: %s", err, b)
	}
	newRun := runScenario(t, "aggregate", nil, ov, pgVars(dsn)...)
	if !strings.Contains(readLog(t, newRun), "reusing the store") {
		t.Fatalf("B did not reuse A's store: the cache would not be the only change")
	}
	reasons := explainPoint(t, "aggregate", "postgres", oldRun, newRun)
	firstNames(t, reasons, []string{"blocks read"}, "plan changed", "work per call", "WAL per call", "per call")
}

func readLog(t *testing.T, run *results.Run) string {
	t.Helper()
	// runScenario's log, beside the results directory.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(run.Dir), "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeVars are write_mixed's, short: one writer and one reader.
var writeVars = []config.VarArg{{Name: "mixed_s", Value: "2"}, {Name: "mixed_readers", Value: "1"}}

// TestInjectedRowLock: during B's writes, another transaction holds
// FOR UPDATE the rows the writes update, for a bounded time: the writer
// waits on a lock, which must come first.
func TestInjectedRowLock(t *testing.T) {
	dsn := sharedPG(t)
	oldDB, newDB := testDB(t, dsn, "lock_a"), testDB(t, dsn, "lock_b")
	oldRun := runScenario(t, "write_mixed", nil, pgOverride(oldDB, ""), pgVars(dsn, writeVars...)...)
	held := false
	hold := func(ctx context.Context) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return
		}
		cfg.Database = newDB
		// Wait for the writer: a session of the run that has updated the
		// current state.
		var c *pgx.Conn
		for c == nil || !writing(ctx, c) {
			if ctx.Err() != nil {
				return
			}
			if c == nil {
				c, _ = pgx.ConnectConfig(ctx, cfg)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		defer c.Close(context.Background())
		// The first update seen is the writer's warmup; the evidence
		// counts from the timed window on, which the warmup's few calls
		// open within milliseconds: the lock is taken inside it.
		select {
		case <-ctx.Done():
			return
		case <-time.After(300 * time.Millisecond):
		}
		tx, err := c.Begin(ctx)
		if err != nil {
			return
		}
		defer tx.Rollback(context.Background())
		if _, err := tx.Exec(ctx, `SELECT e FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/state') FOR UPDATE`); err != nil {
			t.Errorf("locking the state rows: %v", err)
			return
		}
		held = true
		// Bounded: the writes run 2 s; the lock is let go after 1.2 s
		// (at 1.5 s of them), or when the run ends.
		select {
		case <-ctx.Done():
		case <-time.After(1200 * time.Millisecond):
		}
	}
	newRun := runScenario(t, "write_mixed", hold, pgOverride(newDB, ""), pgVars(dsn, writeVars...)...)
	if !held {
		t.Fatal("the lock was never taken during B's writes")
	}
	reasons := explainPoint(t, "write_mixed", "postgres", oldRun, newRun)
	firstNames(t, reasons, []string{"Lock:"}, "plan changed", "work per call", "cache per call", "WAL per call", "per call")
}

// hasFact reports whether run recorded evidence named name for scenario.
func hasFact(run *results.Run, scenario, name string) bool {
	for _, f := range evidence.Of(run).Facts {
		if f.Scenario == scenario && f.Name == name {
			return true
		}
	}
	return false
}

// writing reports whether a session of c's database other than c has run
// the quickstart's write (its UPDATE: only the writes update cur_text).
func writing(ctx context.Context, c *pgx.Conn) bool {
	var n int
	err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE '%UPDATE cur_text%'`).Scan(&n)
	return err == nil && n > 0
}

// TestInjectedSyncCommit: the same writes with synchronous_commit off (A)
// and on (B): each commit waits for its WAL to be flushed, which must
// come first (WAL flush waits), never blamed on the plan or the cache.
func TestInjectedSyncCommit(t *testing.T) {
	dsn := sharedPG(t)
	oldDB, newDB := testDB(t, dsn, "sync_a"), testDB(t, dsn, "sync_b")
	oldRun := runScenario(t, "write_mixed", nil, pgOverride(oldDB, `synchronous_commit = "off"`), pgVars(dsn, writeVars...)...)
	newRun := runScenario(t, "write_mixed", nil, pgOverride(newDB, `synchronous_commit = "on"`), pgVars(dsn, writeVars...)...)
	reasons := explainPoint(t, "write_mixed", "postgres", oldRun, newRun)
	// A flush wait the 200 ms wait sampler catches names it; else the
	// server's WAL syncs per write of the run's own do. Those are given
	// only when the run can account for the server's WAL (no other
	// program writing to it at the time): without them on a side, and no
	// wait caught, the honest answer is "cause undecided", never a wrong
	// cause.
	if len(reasons) > 0 && strings.HasPrefix(reasons[0], evidence.Undecided) {
		for _, r := range []*results.Run{oldRun, newRun} {
			if !hasFact(r, "write_mixed", drivers.EvidenceOwnWrites) {
				t.Logf("the server's WAL could not be put on the run (another program wrote to it): %q", reasons)
				return
			}
		}
	}
	firstNames(t, reasons, []string{"IO:WALSync", "IO:WALWrite", "LWLock:WALWrite", "WAL flushes per write"}, "plan changed", "work per call", "cache per call", "per call")
}

// TestInjectedCPUHog: B runs beside two busy processes (bounded: they end
// by themselves, and are killed when B ends). They are not the run's
// descendants, so the machine's noise sees them. On a machine that is
// already busy (make test beside two busy loops) the noise may not
// differ beyond compare's bound: then the tool cannot tell the hog from
// the machine's usual load, and the honest answer is that it cannot
// decide. So: when compare finds the noise differs, the noise comes first;
// when it does not, the first reason says the cause is undecided (or
// nothing moved at all); and never is a database cause blamed.
func TestInjectedCPUHog(t *testing.T) {
	dsn := sharedPG(t)
	db := testDB(t, dsn, "hog")
	ov := pgOverride(db, `work_mem = "64MB"`)
	oldRun := runScenario(t, "point_lookup", nil, ov, pgVars(dsn)...)
	newRun := runScenario(t, "point_lookup", func(ctx context.Context) {
		pids := hog(t, 2, 20*time.Second)
		<-ctx.Done()
		for _, pid := range pids {
			// timeout leads its own process group: the loop goes with it.
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}, ov, pgVars(dsn)...)
	// The statistical method weighs the noise (compare's default bound).
	rep, err := compare.Runs(oldRun, newRun, compare.Options{Method: compare.MethodStats, Alpha: 0.05, Force: true, NoiseBoundPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	var key *results.Key
	for _, r := range newRun.Timings {
		if r.Scenario == "point_lookup" {
			k := r.Key()
			key = &k
		}
	}
	if key == nil {
		t.Fatal("no point_lookup row")
	}
	w := compare.Why{What: key.String(), Key: *key}
	if err := evidence.Explain(&w, &rep, oldRun, newRun); err != nil {
		t.Fatal(err)
	}
	t.Logf("noise OLD %s, NEW %s; differs: %q; why:\n%s", rep.NoiseOld, rep.NoiseNew, rep.NoiseReason, strings.Join(w.Reasons, "\n"))
	for _, r := range w.Reasons {
		for _, b := range []string{"plan changed", "work per call", "cache per call", "WAL per call", "per call"} {
			if strings.HasPrefix(r, b) {
				t.Errorf("reason %q blames %q", r, b)
			}
		}
	}
	switch {
	case rep.NoiseReason != "":
		firstNames(t, w.Reasons, []string{"noise: "})
	case len(w.Reasons) > 0 && !strings.HasPrefix(w.Reasons[0], evidence.Undecided):
		t.Errorf("the noise did not differ beyond the bound, and the first reason %q does not say the cause is undecided", w.Reasons[0])
	}
}

// hog starts n busy processes that end by themselves after d. They are
// orphaned at once (their parent shell exits), so that the machine's noise
// counts them as other processes, not as the run's.
func hog(t *testing.T, n int, d time.Duration) []int {
	t.Helper()
	script := fmt.Sprintf(`for i in $(seq %d); do timeout %d sh -c 'while :; do :; done' >/dev/null 2>&1 </dev/null & echo $!; done`, n, int(d.Seconds()))
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatalf("starting the hog: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
