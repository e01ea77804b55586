// Package history keeps every run of a benchmark in one SQLite file and
// reads it back as series: the same measurement (metric, scenario,
// operation, backend, scale, clients) on the same kind of machine with
// the same scenario definition, run after run. Package changepoint finds
// where a series changed; this package names what changed there.
//
// It reads a results directory through package results' loaded run
// (Load: rows, precision, fingerprints, env), checking first with small
// readers of its own that the directory is whole (identity.go, which
// also hashes its files into the run's identity).
package history

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	// The SQLite driver the sqlite backend already links: the history is
	// one file beside the results, needs no server, and adds no
	// dependency to the binary.
	"github.com/mattn/go-sqlite3"
)

// SchemaVersion is the layout of the store's tables; a store written by
// a newer mentat-spec is refused, an older one migrated.
const SchemaVersion = 1

// DefaultPath is where the history lives when no path is given.
var DefaultPath = filepath.Join("results", "history.db")

// Store is an open history.
type Store struct {
	db   *sql.DB
	path string
}

var schemaV1 = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS runs (
		id TEXT PRIMARY KEY,   -- digest of every file of the results directory (env.txt and timings.csv before)
		name TEXT NOT NULL,
		dir TEXT NOT NULL,
		started INTEGER NOT NULL, -- unix nanoseconds: the first invocation, else the last write
		revision TEXT NOT NULL,
		machine TEXT NOT NULL,    -- the machine facts that split a series
		machine_fp TEXT NOT NULL,
		added INTEGER NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS runs_started ON runs (started, id)`,
	`CREATE TABLE IF NOT EXISTS env (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		ord INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key))`,
	// One row per point; reps holds every rep's raw.csv and precision.csv
	// fields (encodeReps), so a run of a million raw rows is a few
	// hundred thousand inserts, and a series reads without a join.
	`CREATE TABLE IF NOT EXISTS points (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		scenario TEXT NOT NULL, backend TEXT NOT NULL, scale TEXT NOT NULL, clients INTEGER NOT NULL, op TEXT NOT NULL,
		n_datoms INTEGER NOT NULL,
		scenario_fp TEXT NOT NULL, -- the scenario's definition, its queries and dataset; "" when not recorded
		backend_fp TEXT NOT NULL,  -- the backend's definition: reported where it changes, not a key
		count INTEGER NOT NULL, p50_ms REAL NOT NULL, p95_ms REAL NOT NULL, p99_ms REAL NOT NULL, max_ms REAL NOT NULL,
		throughput_ops_s REAL NOT NULL, errors INTEGER NOT NULL, -- timings.csv's medians
		reps BLOB NOT NULL)`,
	// No key over the point's columns: a run's points are unique by
	// construction (pointsOf), and a million-row run inserts faster into
	// a table whose only index grows at its end.
	`CREATE INDEX IF NOT EXISTS points_run ON points (run_id)`,
	`CREATE TABLE IF NOT EXISTS checks (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, ord INTEGER NOT NULL,
		status TEXT NOT NULL, scenario TEXT NOT NULL, backend TEXT NOT NULL, scale TEXT NOT NULL, name TEXT NOT NULL, detail TEXT NOT NULL,
		PRIMARY KEY (run_id, ord))`,
	`CREATE TABLE IF NOT EXISTS loads (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, ord INTEGER NOT NULL,
		backend TEXT NOT NULL, scale TEXT NOT NULL, n_datoms INTEGER NOT NULL, wall_s REAL NOT NULL, datoms_per_s REAL NOT NULL,
		size_bytes INTEGER, jobs INTEGER NOT NULL, ceiling INTEGER NOT NULL, PRIMARY KEY (run_id, ord))`,
}

// Open opens the history at path, creating it (and its directory) when
// absent.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	// Every transaction of the store writes: _txlock=immediate takes the
	// write lock at BEGIN, so two processes adding at once queue on the
	// busy timeout instead of both reading "absent" and then colliding.
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on&_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=30000&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("history: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := retryBusy(s.migrate); err != nil {
		db.Close()
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// busyFor bounds how long an operation is retried while another process
// holds the file.
const busyFor = 30 * time.Second

// retryBusy runs f again while it fails because another connection holds
// the database: the busy timeout covers most waits, but SQLite returns
// SQLITE_BUSY at once where waiting could deadlock (a reader upgrading,
// the switch of a new file to WAL), and the whole step is then redone.
func retryBusy(f func() error) error {
	deadline := time.Now().Add(busyFor)
	pause := 5 * time.Millisecond
	for {
		err := f()
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause/2 + rand.N(pause/2+1))
		pause = min(2*pause, 500*time.Millisecond)
	}
}

func (s *Store) migrate() error {
	// The version is read and the schema created in one IMMEDIATE
	// transaction: several processes opening a new file at once see it
	// created by whichever came first, never half made.
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&n); err != nil {
		return err
	}
	version := 0
	if n > 0 {
		var v string
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil {
			if version, err = strconv.Atoi(v); err != nil {
				return fmt.Errorf("schema_version %q: %w", v, err)
			}
		}
	}
	if version > SchemaVersion {
		return fmt.Errorf("written by a newer mentat-spec (schema %d, this one knows %d)", version, SchemaVersion)
	}
	if version == SchemaVersion {
		return nil
	}
	// Each version's statements, applied from the store's own onwards.
	for _, stmts := range [][]string{schemaV1}[version:] {
		for _, q := range stmts {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("creating the schema: %w", err)
			}
		}
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)`, strconv.Itoa(SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
