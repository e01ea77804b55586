package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// q1 as the extension tests run it: the quickstart's point lookup with
// one more condition that holds for every row but needs the extension,
// and that errors in a session without the session setup (SQLite: a
// PCRE pattern that does not compile; PostgreSQL: a division by zero).
const extQ1 = `
query "q1" {
  params = { email = pick("user", "user/email") }
  sql = {
    sqlite = <<-SQL
      SELECT u.e AS e, n.v AS name
      FROM cur_text u
      JOIN cur_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
      WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
        AND u.v REGEXP CASE WHEN (SELECT cache_size FROM pragma_cache_size()) = -4242 THEN '^[^@]+@[^@]+$' ELSE '(' END
    SQL
    postgres = <<-SQL
      SELECT u.e AS e, n.v AS name
      FROM cur_text u
      JOIN cur_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
      WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
        AND u.v % u.v
        AND 1 / (CASE WHEN current_setting('pg_trgm.similarity_threshold') = '0.42' THEN 1 ELSE 0 END) = 1
    SQL
    duckdb = <<-SQL
      SELECT u.e AS e, n.v AS name
      FROM cur_text u
      JOIN cur_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
      WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
        AND json_valid(to_json(u.v))
        AND CASE WHEN current_setting('threads') = 1 THEN true ELSE error('no session setup') END
    SQL
  }
}
`

// extOverride writes an override file of the quickstart holding body and
// extQ1, and returns its path.
func extOverride(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "ext_override.hcl")
	if err := os.WriteFile(p, []byte(body+extQ1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// extArgs runs the quickstart's point_lookup and write_mixed (q1 on two
// reader clients next to the writer) on backend with the override.
func extArgs(dir, override, backend string, extra ...string) []string {
	return append([]string{"apply", quickstart, override, "-var", `backends=["` + backend + `"]`,
		"-var", `scenarios=["point_lookup","write_mixed"]`, "-var", "mixed_s=1",
		"-var", "data_dir=" + filepath.Join(dir, "data"), "-o", filepath.Join(dir, "out"), "-q"}, extra...)
}

// extRunOK checks a run with extensions: every check PASS, no call
// failed in any client, and env.txt holds want and documents its
// extension keys.
func extRunOK(t *testing.T, dir string, stdout string, want ...string) {
	t.Helper()
	if !strings.Contains(stdout, "7 PASS, 0 FAIL") {
		t.Errorf("checks: %s", stdout)
	}
	rows := readCSV(t, filepath.Join(dir, "out", "timings.csv"))
	if len(rows) != 3 {
		t.Fatalf("timings.csv has %d rows, want 3", len(rows))
	}
	for _, r := range rows {
		if r["errors"] != "0" || r["count"] == "0" {
			t.Errorf("a client lacked the extension or the session setup: %v", r)
		}
	}
	env, err := os.ReadFile(filepath.Join(dir, "out", "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(env), w) {
			t.Errorf("env.txt lacks %q:\n%s", w, env)
		}
	}
	// Every extension key is one README.md's env.txt table documents.
	documentedKeys := envKeyRows(t)
	for key := range readEnv(t, filepath.Join(dir, "out")) {
		if !strings.Contains(key, ".extension") {
			continue
		}
		documented := false
		for k := range documentedKeys {
			documented = documented || keyPattern(k).MatchString(key)
		}
		if !documented {
			t.Errorf("env.txt key %q is not in README.md's env.txt table", key)
		}
	}
}

// Debian's sqlite3-pcre, loaded through extensions into every session:
// the clients' (goroutines, then one worker process per client), the
// writer's, the checks'. q1's REGEXP passes its checks; env.txt names the
// file and its SHA-256; the backend's explain statement writes plans/.
func TestApplySQLiteExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	pcre := drivertest.NeedSQLitePCRE(t)
	sum, _, err := drivers.FileSHA256(pcre)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asCLI, "1") // the worker processes run this binary
	for _, model := range []string{"goroutine", "process"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			ov := extOverride(t, dir, `
backend "sqlite" {
  extensions    = ["`+pcre+`"]
  session_setup = ["PRAGMA cache_size = -4242"]
  explain       = "SELECT 'store plan', :email, :q REGEXP 'cur_text'"
}
`)
			stdout, _, most := applyWatched(t, extArgs(dir, ov, "sqlite", "-var", `client_model="`+model+`"`)...)
			if model == "process" && most < 1 {
				t.Errorf("no worker process seen")
			}
			extRunOK(t, dir, stdout, "backend.sqlite.xs.extension.0.path: "+pcre, "backend.sqlite.xs.extension.0.sha256: "+sum)
			plan, err := os.ReadFile(filepath.Join(dir, "out", "plans", "xs-sqlite-point_lookup-q1.txt"))
			if err != nil || !strings.Contains(string(plan), "store plan\tuser") || !strings.Contains(string(plan), "@example.com\t1") {
				t.Errorf("plans/ lacks the explain statement's answer (%v):\n%s", err, plan)
			}
		})
	}
}

// A missing file and a wrong entry point stop the run with exit 7 naming
// the backend, the file and SQLite's error, before any store is created
// or loaded.
func TestApplyExtensionRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	pcre := drivertest.NeedSQLitePCRE(t)
	for _, tc := range []struct {
		name, backend, ext string
		want               []string
	}{
		{"sqlite missing file", "sqlite", `["/nonexistent/pcre.so"]`, []string{`sqlite backend "sqlite"`, "/nonexistent/pcre.so", "no such file"}},
		{"sqlite wrong entry point", "sqlite", `[{ path = "` + pcre + `", entry_point = "sqlite3_nope_init" }]`, []string{`sqlite backend "sqlite"`, pcre, "sqlite3_nope_init", "undefined symbol"}},
		{"duckdb missing file", "duckdb", `["/nonexistent/mentat.duckdb_extension"]`, []string{`duckdb backend "duckdb"`, "/nonexistent/mentat.duckdb_extension", "IO Error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ov := extOverride(t, dir, `backend "`+tc.backend+`" {
  extensions = `+tc.ext+`
  allow_unsigned_extensions = true
}
`)
			code, stdout, stderr := runT(t, extArgs(dir, ov, tc.backend)...)
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
		})
	}
}

// A DuckDB extension built into the binding (json), in every session with
// the session setup; env.txt holds its duckdb_extensions() row.
func TestApplyDuckDBExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dir := t.TempDir()
	ov := extOverride(t, dir, `
backend "duckdb" {
  extensions    = ["json"]
  session_setup = ["SET threads = 1"]
}
`)
	code, stdout, stderr := runT(t, extArgs(dir, ov, "duckdb")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	extRunOK(t, dir, stdout, "backend.duckdb.xs.extension.0.name: json", "backend.duckdb.xs.extension.0.loaded: true",
		"backend.duckdb.xs.extension.0.installed: true", "backend.duckdb.xs.extension.0.version: v")
}

// pg_trgm from the server's contrib, created through extensions, with a
// per-session SET that every client session sees (q1 divides by zero in
// one that does not); env.txt holds its extversion.
func TestApplyPostgresExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apply")
	}
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is not set")
	}
	dir := t.TempDir()
	db := "mentat_ext_" + strings.ReplaceAll(filepath.Base(dir), "-", "_")
	ov := extOverride(t, dir, `
backend "postgres" {
  database      = "`+db+`"
  extensions    = [{ name = "pg_trgm" }]
  session_setup = ["SET pg_trgm.similarity_threshold = 0.42"]
}
`)
	t.Cleanup(func() { dropDatabase(t, dsn, db) })
	code, stdout, stderr := runT(t, extArgs(dir, ov, "postgres", "-var", "pg_dsn="+dsn)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	extRunOK(t, dir, stdout, "backend.postgres.xs.extension.0.name: pg_trgm", "backend.postgres.xs.extension.0.extversion: 1.")
}

// plan shows each backend's extensions, session setup and explain
// statement; an extension SQLite cannot take (a
// name) is refused by apply with exit 2, before anything runs.
func TestPlanShowsExtensions(t *testing.T) {
	dir := t.TempDir()
	ov := extOverride(t, dir, `
backend "sqlite" {
  extensions    = [{ path = "/opt/mentat/libmentat.so", entry_point = "sqlite3_mentat_init" }]
  session_setup = ["PRAGMA cache_size = -4242"]
  explain       = "SELECT mentat_explain(:q)"
}
`)
	code, stdout, stderr := runT(t, "plan", quickstart, ov)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	for _, w := range []string{
		"extensions, in every session: /opt/mentat/libmentat.so (entry point sqlite3_mentat_init)",
		"session setup, on every session: PRAGMA cache_size = -4242",
		"explain: SELECT mentat_explain(:q)",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("plan lacks %q:\n%s", w, stdout)
		}
	}
	byName := extOverride(t, dir, "backend \"sqlite\" {\n  extensions = [\"pcre\"]\n}\n")
	code, _, stderr = runT(t, extArgs(dir, byName, "sqlite")...)
	if code != exitUsage || !strings.Contains(stderr, `extension "pcre": SQLite loads a file: give its path`) {
		t.Errorf("apply with an extension named, not a file: exit %d, want 2:\n%s", code, stderr)
	}
}
