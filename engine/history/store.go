// Package history keeps every run of a benchmark in one SQLite file, or
// one PostgreSQL database a team shares, and reads it back as series:
// the same measurement (metric, scenario, operation, backend, scale,
// clients) on the same kind of machine with
// the same scenario definition, run after run. Package changepoint finds
// where a series changed; this package names what changed there.
//
// It reads a results directory through package results' loaded run
// (Load: rows, precision, fingerprints, env), checking first with small
// readers of its own that the directory is whole (identity.go, which
// also hashes its files into the run's identity).
package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/redact"

	// The SQLite driver the sqlite backend already links: the default
	// history is one file beside the results, needs no server, and adds
	// no dependency to the binary; pgx, the postgres backend's, for a
	// history a team shares on a server.
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// SchemaVersion is the layout of the store's tables; a store written by
// a newer mentat-spec is refused, an older one migrated.
const SchemaVersion = 2

// DefaultPath is where the history lives when no path is given.
var DefaultPath = filepath.Join("results", "history.db")

// Store is an open history.
type Store struct {
	db  *sql.DB // writes
	rdb *sql.DB // reads: SQLite's deferred handle, or db
	d   dialect
	loc string
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

// Open opens the history at loc: a PostgreSQL URL (postgres://...), or
// else a SQLite file, created (with its directory) when absent. The
// schema is created or migrated on open, the same on both.
func Open(loc string) (*Store, error) {
	protect(loc)
	s, err := open(loc)
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", Display(loc), redacted{err})
	}
	if err := s.d.retry(s.migrate); err != nil {
		s.Close()
		return nil, fmt.Errorf("history: %s: %w", Display(loc), redacted{err})
	}
	return s, nil
}

// redacted is a driver's error with the password left out of its text,
// should the driver quote the URL it was given.
type redacted struct{ err error }

func (r redacted) Error() string { return redact.String(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

func open(loc string) (*Store, error) {
	if IsURL(loc) {
		db, err := sql.Open("pgx", loc)
		if err != nil {
			return nil, err
		}
		// A few connections: a history is written one run at a time.
		db.SetMaxOpenConns(4)
		if err := db.Ping(); err != nil {
			db.Close()
			return nil, err
		}
		return &Store{db: db, rdb: db, d: postgresDialect{}, loc: loc}, nil
	}
	if dir := filepath.Dir(loc); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	// Every write transaction of the store writes: _txlock=immediate
	// takes the write lock at BEGIN, so two processes adding at once
	// queue on the busy timeout instead of both reading "absent" and then
	// colliding. Reads go through a second handle whose transactions are
	// deferred: a snapshot that blocks no writer.
	const opts = "?_foreign_keys=on&_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=30000&_txlock="
	db, err := sql.Open("sqlite3", "file:"+loc+opts+"immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	rdb, err := sql.Open("sqlite3", "file:"+loc+opts+"deferred")
	if err != nil {
		db.Close()
		return nil, err
	}
	rdb.SetMaxOpenConns(1)
	return &Store{db: db, rdb: rdb, d: sqliteDialect{}, loc: loc}, nil
}

// Close closes the store.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.rdb != s.db {
		err = errors.Join(err, s.rdb.Close())
	}
	return err
}

// Path is where the store is, as it may be printed: a file, or a URL
// with its password replaced.
func (s *Store) Path() string { return Display(s.loc) }

// q is query in the store's dialect.
func (s *Store) q(query string) string { return s.d.rebind(query) }

// busyFor bounds how long an operation is retried while another process
// holds the database.
const busyFor = 30 * time.Second

// queryer is what a read runs its queries on: a transaction, so that
// every query of one read sees one snapshot.
type queryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
	QueryRow(query string, args ...any) *sql.Row
}

// read runs f in one read transaction: a run another process commits
// meanwhile is wholly in what f sees, or wholly out.
func (s *Store) read(f func(q queryer) error) error {
	return s.d.retry(func() error {
		tx, err := s.rdb.BeginTx(context.Background(), s.d.readTx())
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := f(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

func (s *Store) migrate() error {
	// The version is read and the schema created in one transaction that
	// holds the schema lock: several processes opening a new store at
	// once see it created by whichever came first, never half made.
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.d.lockSchema(tx); err != nil {
		return err
	}
	has, err := s.d.hasMeta(tx)
	if err != nil {
		return err
	}
	version := 0
	if has {
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
	for _, stmts := range [][]string{schemaV1, schemaV2}[version:] {
		for _, q := range stmts {
			if _, err := tx.Exec(s.d.ddl(q)); err != nil {
				return fmt.Errorf("creating the schema: %w", err)
			}
		}
	}
	if _, err := tx.Exec(s.q(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`), strconv.Itoa(SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
