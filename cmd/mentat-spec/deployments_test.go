package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

const deploymentsDir = "../../specs/deployments/"

// The seed suite's deployments validate and plan as specs: each with its
// extension, its session setup, edn_t load and mentat_explain in the plan.
func TestDeploymentsValidateAndPlan(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"sqlite-ext.hcl", []string{"backend sqlite-ext (driver sqlite)", "extensions, in every session: target/release/libmentat_sqlite.so"}},
		{"duckdb.hcl", []string{"backend duckdb-ext (driver duckdb)", "mentat.duckdb_extension"}},
		{"pg_mentat.hcl", []string{"backend pg_mentat (driver postgres)", "pg_mentat", "SET mentat.max_result_rows = 0", "SET mentat.temp_file_limit = '100GB'"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := []string{deploymentsDir + tc.file} // plan needs no server
			if code, stdout, stderr := runT(t, append([]string{"validate"}, args...)...); code != exitOK {
				t.Fatalf("validate: exit %d\n%s\n%s", code, stdout, stderr)
			}
			code, stdout, stderr := runT(t, append([]string{"plan"}, args...)...)
			if code != exitOK {
				t.Fatalf("plan: exit %d\n%s\n%s", code, stdout, stderr)
			}
			for _, w := range append(tc.want, `through the statement "SELECT edn_t(:tx)", edn tx-data, 3,800 datoms per batch`,
				"explain: SELECT mentat_explain(:q)", "9 scenarios", "verify state_now", "check input_bindings: query input_bindings") {
				if !strings.Contains(stdout, w) {
					t.Errorf("plan lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
	// A batch at mentat's SQLite assertion (6 * 5461 >= 32766) is refused
	// at the variable, exit 2, before anything runs.
	if code, _, stderr := runT(t, "validate", deploymentsDir+"sqlite-ext.hcl", "-var", "batch_datoms=5461"); code != exitUsage || !strings.Contains(stderr, "5,460") {
		t.Errorf("batch_datoms=5461: exit %d\n%s", code, stderr)
	}
	// A GUC left unset is not set: pg_mentat's own default holds.
	code, stdout, _ := runT(t, "plan", deploymentsDir+"pg_mentat.hcl", "-var", "pg_slow_query_ms=250")
	if code != exitOK || !strings.Contains(stdout, "SET mentat.slow_query_ms = 250") {
		t.Errorf("pg_slow_query_ms=250: exit %d\n%s", code, stdout)
	}
	if _, stdout, _ := runT(t, "plan", deploymentsDir+"pg_mentat.hcl"); strings.Contains(stdout, "slow_query_ms") {
		t.Errorf("slow_query_ms set without the variable:\n%s", stdout)
	}
}

// apply of each deployment where its extension is absent (no mentat
// build exists on this machine) stops with exit 7 naming the backend and
// the extension, before any store is opened or anything loaded.
func TestDeploymentsApplyWithoutExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	for _, tc := range []struct {
		name, file string
		args       []string
		want       []string
	}{
		{"sqlite-ext", "sqlite-ext.hcl", []string{"-var", "sqlite_ext=/nonexistent/libmentat_sqlite.so"},
			[]string{`sqlite backend "sqlite-ext"`, "/nonexistent/libmentat_sqlite.so", "no such file"}},
		{"duckdb", "duckdb.hcl", []string{"-var", "duckdb_ext=/nonexistent/mentat.duckdb_extension"},
			[]string{`duckdb backend "duckdb-ext"`, "/nonexistent/mentat.duckdb_extension", "IO Error"}},
		{"pg_mentat", "pg_mentat.hcl", []string{"-var", "pg_dsn=" + dsn},
			[]string{`postgres backend "pg_mentat"`, "extension pg_mentat", "pg_available_extension_versions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "pg_mentat" {
				if dsn == "" {
					t.Skip("MENTAT_SPEC_PG_DSN is not set")
				}
				if hasDatabase(t, dsn, "mentat_deploy_xs") {
					t.Skip("the server has a database mentat_deploy_xs the test did not create")
				}
			}
			dir := t.TempDir()
			args := append([]string{"apply", deploymentsDir + tc.file, "-var", "data_dir=" + filepath.Join(dir, "data"),
				"-o", filepath.Join(dir, "out"), "-q"}, tc.args...)
			code, stdout, stderr := runT(t, args...)
			if code != exitUnfinished {
				t.Fatalf("exit %d, want 7\n%s\n%s", code, stdout, stderr)
			}
			for _, w := range append(tc.want, "before loading anything") {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
				t.Errorf("the data directory exists: a store was opened (%v)", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "out", "loads.csv")); !os.IsNotExist(err) {
				t.Errorf("loads.csv exists: something was loaded (%v)", err)
			}
			if tc.name == "pg_mentat" && hasDatabase(t, dsn, "mentat_deploy_xs") {
				dropDatabase(t, dsn, "mentat_deploy_xs")
				t.Error("the run created its database before finding pg_mentat absent")
			}
		})
	}
}

// hasDatabase reports whether the server at dsn has database name.
func hasDatabase(t *testing.T, dsn, name string) bool {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
