package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

func historyCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// TestHistoryCommand: the synthetic history of the issue through the
// command line: check exits with the regression code at the shift and 0
// elsewhere; the same history without the shift checks 0 everywhere.
func TestHistoryCommand(t *testing.T) {
	stores := historyStores(t)
	for _, tc := range []struct {
		name    string
		shiftAt int
	}{{"shift", 40}, {"aa", -1}} {
		for _, st := range stores {
			t.Run(tc.name+"/"+st.name, func(t *testing.T) {
				testHistoryCommand(t, tc.shiftAt, st.loc(t))
			})
		}
	}
}

func testHistoryCommand(t *testing.T, shiftAt int, db string) {
	root := t.TempDir()
	dirs, err := historytest.History(filepath.Join(root, "runs"), 60, 5, 0.10, shiftAt, 1.15)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := historyCLI(t, append([]string{"history", "add", "-db", db}, dirs...)...)
	if code != exitOK || strings.Count(out, "added ") != 60 {
		t.Fatalf("add: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := historyCLI(t, "history", "add", dirs[3], "-db", db); code != exitOK || !strings.HasPrefix(out, "already in the history") {
		t.Errorf("adding again: exit %d %q", code, out)
	}
	for i, d := range dirs {
		code, out, errs := historyCLI(t, "history", "check", "-db", db, d)
		want := exitOK
		if i == shiftAt {
			want = exitRegression
			for _, w := range []string{"REGRESSION point_lookup store xs clients=1 read p50_ms: +1", "after run-039", shortHex(historytest.Revision(39)) + ".."} {
				if !strings.Contains(out, w) {
					t.Errorf("check run-040 lacks %q:\n%s", w, out)
				}
			}
		}
		if code != want {
			t.Errorf("check %s: exit %d, want %d\n%s%s", filepath.Base(d), code, want, out, errs)
		}
	}
	html := filepath.Join(root, "trends.html")
	if code, _, errs := historyCLI(t, "history", "report", "-o", html, "-db", db); code != exitOK || !strings.Contains(errs, "wrote ") {
		t.Errorf("report: exit %d %s", code, errs)
	}
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte(`<svg class="chart"`)) {
		t.Errorf("trends.html: %v", err)
	}
	code, md, _ := historyCLI(t, "history", "-db", db, "report", "-markdown")
	if code != exitOK || !strings.HasPrefix(md, "## Benchmark history") {
		t.Errorf("markdown: exit %d\n%s", code, md)
	}
	if (shiftAt >= 0) != strings.Contains(md, "regression**") {
		t.Errorf("markdown:\n%s", md)
	}
	if code, out, _ := historyCLI(t, "history", "ls", "-db", db); code != exitOK || strings.Count(out, "\n") != 61 {
		t.Errorf("ls: exit %d, %d lines", code, strings.Count(out, "\n"))
	}
	if code, out, _ := historyCLI(t, "history", "rm", "-db", db, "run-000"); code != exitOK || !strings.HasPrefix(out, "removed ") {
		t.Errorf("rm: exit %d %q", code, out)
	}
	if code, _, errs := historyCLI(t, "history", "check", "-db", db, "run-000"); code != exitUsage || !strings.Contains(errs, "no such run") {
		t.Errorf("check of a removed run: exit %d %s", code, errs)
	}
}

func shortHex(rev string) string { return rev[:12] }

func TestHistoryUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, args := range [][]string{
		{"history"},
		{"history", "frob", "-db", db},
		{"history", "add", "-db", db},
		{"history", "report", "-db", db},
		{"history", "check", "-db", db},
		{"history", "ls", "-db", db, "-max-p", "2"},
		{"history", "export", "-db", db},
		{"history", "import", "-db", db, "a.db", "b.db"},
	} {
		if code, _, _ := historyCLI(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, errs := historyCLI(t, "history", "add", "-db", db, t.TempDir()); code != exitUnfinished || !strings.Contains(errs, "not a results directory") {
		t.Errorf("add of an empty directory: exit %d %s", code, errs)
	}
}

// historyStore is a kind of store the history command is tested on.
type historyStore struct {
	name string
	loc  func(t *testing.T) string // a new, empty history's -db
}

// historyStores are a SQLite file and, with MENTAT_SPEC_PG_DSN, a fresh
// schema of a database this test creates (and drops) on that server.
func historyStores(t *testing.T) []historyStore {
	stores := []historyStore{{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "history.db") }}}
	if pg := historyPG(t); pg != "" {
		stores = append(stores, historyStore{"postgres", func(t *testing.T) string {
			u, err := historytest.Schema(pg)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}})
	}
	return stores
}

// historyPG creates a database for the test on the throwaway server and
// returns its URL, "" (logged) without a server.
func historyPG(t *testing.T) string {
	dsn := os.Getenv(historytest.DSNVar)
	if dsn == "" {
		t.Logf("%s is unset: the history on SQLite only", historytest.DSNVar)
		return ""
	}
	u, drop, err := historytest.CreateDatabase(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return u
}
