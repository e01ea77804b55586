package examples

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgbenchTables applies examples/tpcb with examples/tpcb/pgbench (the
// dataset loaded through pgbench_load into pgbench's own tables, tpcb_like
// on them) into a database of its own, dropped when the test ends (the
// run creates it). edits change the copied files before the run.
func pgbenchTables(t *testing.T, edits func(dir string)) run {
	t.Helper()
	if testing.Short() {
		t.Skip("loads a database")
	}
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is not set")
	}
	spec := filepath.Join(workspace(t, "tpcb"), "examples", "tpcb")
	if edits != nil {
		edits(filepath.Join(spec, "pgbench"))
	}
	db := fmt.Sprintf("mentat_tpcb_pgbench_test_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("drop %s_s1: %v", db, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+"_s1 WITH (FORCE)"); err != nil {
			t.Logf("drop %s_s1: %v", db, err)
		}
	})
	return applyTo(t, spec, t.TempDir(), append(tpcbUnit, filepath.Join("tpcb", "pgbench"), "-var", "pgbench_database="+db,
		"-var", "clients=[4]", "-var", "calls=1000")...)
}

// TestTPCBPgbenchTablesPass loads the tpcb example into pgbench's tables
// and runs pgbench's tpcb-like SQL on them from 4 clients: exit 0 and
// every check PASS, read from pgbench_accounts, _tellers, _branches and
// _history (balances after the deltas, totals, per-branch sums,
// conservation during and after).
func TestTPCBPgbenchTablesPass(t *testing.T) {
	r := pgbenchTables(t, nil)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.output)
	}
	status := checkStatus(r.checks)
	for _, c := range []string{"accounts", "tellers", "totals", "by_branch", "conservation"} {
		if status[c] != "PASS" {
			t.Errorf("%s %q, want PASS:\n%s", c, status[c], strings.Join(r.checks, "\n"))
		}
	}
	if !strings.Contains(strings.Join(r.checks, "\n"), "PASS tpcb_like pgbench_tables s1 conservation (during): ") {
		t.Errorf("no PASS of conservation during the scenario: %v", r.checks)
	}
}

// TestTPCBPgbenchTablesConservationFails drops the branch's UPDATE from
// the SQL on pgbench's tables while the spec still declares it: the
// deltas reach the accounts, tellers and history but not the branch, so
// conservation (sum abalance = sum tbalance = sum bbalance = sum delta)
// and the branch total FAIL, and the per-account balances still PASS.
func TestTPCBPgbenchTablesConservationFails(t *testing.T) {
	r := pgbenchTables(t, func(dir string) {
		edit(t, filepath.Join(dir, "tpcb.sql"),
			"UPDATE pgbench_branches SET bbalance = bbalance + CAST(:delta AS INTEGER) WHERE bid = CAST(CAST(:branch_e AS BIGINT) % 1000000000000 + 1 AS INTEGER);\n", "")
	})
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.output)
	}
	status := checkStatus(r.checks)
	for c, want := range map[string]string{"conservation": "FAIL", "totals": "FAIL", "accounts": "PASS", "tellers": "PASS"} {
		if status[c] != want {
			t.Errorf("%s %q, want %s:\n%s", c, status[c], want, strings.Join(r.checks, "\n"))
		}
	}
}
