package history

import (
	"database/sql"
	"errors"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// dialect is what differs between the two stores a history lives in: the
// store's SQL is written once, with ? placeholders and SQLite's column
// types, and each dialect rewrites what its database spells otherwise.
type dialect interface {
	// rebind rewrites a query's ? placeholders.
	rebind(q string) string
	// ddl rewrites a CREATE statement's column types.
	ddl(q string) string
	// hasMeta reports whether the meta table exists.
	hasMeta(tx *sql.Tx) (bool, error)
	// lockSchema serialises schema creation between processes for the
	// rest of tx.
	lockSchema(tx *sql.Tx) error
	// retry runs f again while it fails because another writer was in
	// the way.
	retry(f func() error) error
	// readTx are the options of a read: one snapshot for all its queries.
	readTx() *sql.TxOptions
}

// retryFor redoes f while transient(err), up to busyFor.
func retryFor(f func() error, transient func(error) bool) error {
	deadline := time.Now().Add(busyFor)
	pause := 5 * time.Millisecond
	for {
		err := f()
		if err == nil || !transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause/2 + rand.N(pause/2+1))
		pause = min(2*pause, 500*time.Millisecond)
	}
}

type sqliteDialect struct{}

func (sqliteDialect) rebind(q string) string { return q }
func (sqliteDialect) ddl(q string) string    { return q }

func (sqliteDialect) hasMeta(tx *sql.Tx) (bool, error) {
	var n int
	err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).Scan(&n)
	return n > 0, err
}

// lockSchema: the transaction is IMMEDIATE already (_txlock), which
// holds the file's write lock from its BEGIN.
func (sqliteDialect) lockSchema(*sql.Tx) error { return nil }

// retry: the busy timeout covers most waits, but SQLite returns
// SQLITE_BUSY at once where waiting could deadlock (a reader upgrading,
// the switch of a new file to WAL), and the whole step is then redone.
func (sqliteDialect) retry(f func() error) error {
	return retryFor(f, func(err error) bool {
		var se sqlite3.Error
		return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
	})
}

// readTx: the reading handle's transactions are DEFERRED, so in WAL mode
// a read holds the snapshot its first SELECT saw and blocks no writer.
func (sqliteDialect) readTx() *sql.TxOptions { return nil }

type postgresDialect struct{}

var placeholder = regexp.MustCompile(`\?`)

func (postgresDialect) rebind(q string) string {
	n := 0
	return placeholder.ReplaceAllStringFunc(q, func(string) string {
		n++
		return "$" + strconv.Itoa(n)
	})
}

var pgTypes = strings.NewReplacer(" INTEGER", " BIGINT", " REAL", " DOUBLE PRECISION", " BLOB", " BYTEA")

func (postgresDialect) ddl(q string) string { return pgTypes.Replace(q) }

// hasMeta looks meta up on the search path, as unqualified names resolve.
func (postgresDialect) hasMeta(tx *sql.Tx) (bool, error) {
	var ok bool
	err := tx.QueryRow(`SELECT to_regclass('meta') IS NOT NULL`).Scan(&ok)
	return ok, err
}

// historySchemaLock is the advisory lock key under which a schema is
// created: two processes running CREATE TABLE IF NOT EXISTS at once can
// both find the table absent, and the second fails on the catalog's
// unique index.
const historySchemaLock = 0x6d656e746174 // "mentat"

func (postgresDialect) lockSchema(tx *sql.Tx) error {
	_, err := tx.Exec(`SELECT pg_advisory_xact_lock($1)`, int64(historySchemaLock))
	return err
}

// retry redoes a transaction PostgreSQL aborted for another's sake: a
// serialization failure or a deadlock.
func (postgresDialect) retry(f func() error) error {
	return retryFor(f, func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
	})
}

// readTx: REPEATABLE READ gives every query of a read the one snapshot
// taken at its first; a run committed meanwhile is wholly in or out.
func (postgresDialect) readTx() *sql.TxOptions {
	return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
}
