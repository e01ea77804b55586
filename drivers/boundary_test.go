package drivers_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// databaseWords are what only a driver may say: database names, their
// settings' prefixes and their error texts. Strings are searched for all
// of them, identifiers for the names; comments may name a database.
var databaseWords = []string{
	"sqlite", "postgres", "duckdb",
	"pg_setting", "duckdb_setting", "compile_options",
	"database is locked", "database table is locked", "database or disk is full",
	"could not serialize", "deadlock detected", "write-write conflict", "transaction conflict", "conflict on",
	"sqlstate", "40001", "40p01",
}

// boundaryAllowed are the engine's files, and strings in files, that may
// name a database, each with why: none holds what differs by database
// under test.
var boundaryAllowed = map[string]string{
	// The history store is the engine's own storage on SQLite or
	// PostgreSQL (file or DSN), not a database under test.
	"engine/history/store.go":    "",
	"engine/history/dialect.go":  "",
	"engine/history/location.go": "",
	// A synthetic results directory for tests, written as a run of the
	// default spec's backend would be.
	"engine/history/historytest/synth.go": "",
	// A diagnostic's example of SQL by dialect, as docs/spec-language.md
	// writes it.
	"engine/resolve/query.go": `duckdb = file("duckdb/q1.sql")`,
	// Prose naming example caches in the memory section; the report's
	// sections are being reshaped elsewhere (left to that work).
	"engine/report/memory.go": "SQLite's page cache, DuckDB's buffer pool",
}

// TestEngineNamesNoDatabase keeps what differs by database in the
// drivers: engine/'s non-test Go code names no database, settings prefix
// or error text except the entries of boundaryAllowed.
func TestEngineNamesNoDatabase(t *testing.T) {
	root := filepath.Join("..", "engine")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		allowed, listed := boundaryAllowed[rel]
		if listed && allowed == "" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			words := databaseWords
			switch {
			case tok == token.IDENT:
				words = databaseWords[:3]
			case tok == token.STRING || tok == token.CHAR:
				if listed && strings.Contains(lit, allowed) {
					continue
				}
			default:
				continue
			}
			low := strings.ToLower(lit)
			for _, w := range words {
				if strings.Contains(low, w) {
					t.Errorf("%s: %s names %q: a driver's to say (a capability in drivers/)", fset.Position(pos), lit, w)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
