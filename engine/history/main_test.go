package history

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

// testPG is the URL of the database this test run created on the
// throwaway server, "" without one: every store test runs on a SQLite
// file and, when there is a server, on a fresh schema of that database.
var testPG string

func TestMain(m *testing.M) {
	if dsn := os.Getenv(historytest.DSNVar); dsn != "" {
		u, drop, err := historytest.CreateDatabase(dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "history tests: creating a database on %s: %v\n", Display(dsn), err)
			os.Exit(1)
		}
		testPG = u
		code := m.Run()
		if err := drop(); err != nil {
			fmt.Fprintf(os.Stderr, "history tests: dropping the database: %v\n", err)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// storeKind is one of the stores a history lives in.
type storeKind struct {
	name string
	// loc returns the location of a new, empty history.
	loc func(t testing.TB) string
}

func storeKinds(t testing.TB) []storeKind {
	kinds := []storeKind{{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "h", "history.db") }}}
	if testPG == "" {
		t.Logf("%s is unset: SQLite only", historytest.DSNVar)
		return kinds
	}
	return append(kinds, storeKind{"postgres", func(t testing.TB) string {
		u, err := historytest.Schema(testPG)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}})
}

// open opens a new, empty history of the kind.
func (k storeKind) open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(k.loc(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// forStores runs f once per store kind, as a subtest named after it.
func forStores(t *testing.T, f func(t *testing.T, k storeKind)) {
	for _, k := range storeKinds(t) {
		t.Run(k.name, func(t *testing.T) { f(t, k) })
	}
}
