package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// withEvidence writes the same evidence into every run: the synthetic
// shift moves the latency and nothing the database reports.
func withEvidence(t *testing.T, dirs []string) {
	t.Helper()
	for _, d := range dirs {
		for name, text := range map[string]string{
			results.SplitFile:    results.SplitHeader + "\npoint_lookup,store,xs,1,0,1,100,0.2,,,0.01,0.19,server_exec+planning,0.1\n",
			results.EvidenceFile: results.EvidenceHeader + "\npoint_lookup,store,xs,1,0,sqlite3_stmt_status,q1,calls,100,\npoint_lookup,store,xs,1,0,sqlite3_stmt_status,q1,vm_steps,4400,\n",
		} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A change point whose runs kept the same evidence says "no evidence
// moved"; one of runs imported into a store of schema 1 (before the
// history kept evidence), migrated on open, says the evidence is not
// kept; both stores.
func TestChangePointWhyNothingMoved(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 12, 5, 0.05, 6, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		withEvidence(t, dirs)
		s := k.open(t)
		addAll(t, s, dirs)
		cs := analyze(t, s).Changes()
		if len(cs) == 0 {
			t.Fatal("no change point")
		}
		for _, c := range cs {
			if !c.WhyKept || len(c.Why) != 0 || c.WhySay() != "no evidence moved" {
				t.Errorf("%s: why %q (kept %v), want: no evidence moved", c.Series.Key, c.Why, c.WhyKept)
			}
		}
	})
}

func TestMigrateToEvidence(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		loc := k.loc(t)
		s, err := Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		// A store as schema 1 left it: no evidence tables.
		for _, tbl := range []string{"evidence_facts", "evidence_splits", "evidence_plans"} {
			if _, err := s.db.Exec(`DROP TABLE ` + tbl); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.db.Exec(`UPDATE meta SET value = '1' WHERE key = 'schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if s, err = Open(loc); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var v string
		if err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "2" {
			t.Fatalf("schema_version %q (%v), want 2", v, err)
		}
		dirs, err := historytest.History(t.TempDir(), 12, 5, 0.05, 6, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		addAll(t, s, dirs) // no evidence in these runs: none kept
		cs := analyze(t, s).Changes()
		if len(cs) == 0 {
			t.Fatal("no change point")
		}
		for _, c := range cs {
			if c.WhyKept || !strings.Contains(c.WhySay(), "not kept") {
				t.Errorf("%s: %q, want the evidence said not kept", c.Series.Key, c.WhySay())
			}
		}
	})
}
