package runner_test

import (
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers "duckdb" for database/sql
	_ "github.com/mattn/go-sqlite3"    // registers "sqlite3" for database/sql

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// dirDigest maps every file of dir to the hash of its bytes.
func dirDigest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func names(m map[string][32]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRefusedStoreIsByteIdentical: a SQLite or DuckDB file the run did not
// create is refused, and refusing leaves it byte-identical, with no file
// added next to it: nothing (pragmas and settings included) writes before
// the engine has read that the store is not its own.
func TestRefusedStoreIsByteIdentical(t *testing.T) {
	for _, tt := range []struct{ backend, sqlDriver, ext string }{
		{"sqlite", "sqlite3", "sqlite"},
		{"duckdb", "duckdb", "duckdb"},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			spec, data := tinyQuickstart(t)
			if err := os.MkdirAll(data, 0o755); err != nil {
				t.Fatal(err)
			}
			// A user's own database, written by its own client, sits where
			// the backend points.
			path := filepath.Join(data, "quickstart-xs."+tt.ext)
			db, err := sql.Open(tt.sqlDriver, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"CREATE TABLE my_data (x INTEGER)", "INSERT INTO my_data VALUES (42)"} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			before := dirDigest(t, data)

			o, _ := apply(t, spec, runner.Options{}, config.VarArg{Name: "data_dir", Value: data},
				config.VarArg{Name: "backends", Value: `["` + tt.backend + `"]`})
			if !o.Failed() || len(o.Failures) == 0 || !strings.Contains(o.Failures[0], "not created by") {
				t.Fatalf("the run must refuse a store it did not create: %v", o.Failures)
			}
			after := dirDigest(t, data)
			if strings.Join(names(after), " ") != strings.Join(names(before), " ") {
				t.Errorf("files next to the store changed: %v, were %v", names(after), names(before))
			}
			for name, h := range before {
				if after[name] != h {
					t.Errorf("%s changed while being refused", name)
				}
			}
		})
	}
}
