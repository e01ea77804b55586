package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Reader sessions (the readers option).
//
// In WAL mode every read transaction takes a read lock in the WAL index
// and a shared lock on the file. The connections of one process share
// those locks in memory, so only the first reader of a process takes them
// from the kernel; each process of a one-process-per-client deployment
// takes them itself, with two to six fcntl calls per query, serialised
// on the file's lock list. That is the deployment's own cost and the
// default ("locking") measures it. "immutable" opens the readers of a
// point that does not write with SQLite's immutable flag: no locks and
// no change detection, as a read-only published file is served. Both
// client models then read the file the same way.
const (
	ReadersLocking   = "locking"
	ReadersImmutable = "immutable"
)

var (
	_ drivers.ReaderSessions  = (*backend)(nil)
	_ drivers.ReadOnlyReaders = sqliteDriver{}
)

// readersOption reads the readers option: true for "immutable".
func readersOption(opts map[string]string) (bool, error) {
	switch v, ok := opts["readers"]; {
	case !ok || v == ReadersLocking:
		return false, nil
	case v == ReadersImmutable:
		return true, nil
	default:
		return false, fmt.Errorf("option readers = %q: want %q or %q", v, ReadersLocking, ReadersImmutable)
	}
}

// ReadersRefuseWrites implements drivers.ReadOnlyReaders: immutable
// readers would not see the writes of a scenario, and can write nothing.
func (sqliteDriver) ReadersRefuseWrites(opts map[string]string) (string, bool) {
	if on, err := readersOption(opts); err != nil || !on {
		return "", false
	}
	return `its readers open the file immutable (readers = "immutable"): they would not see the writes`, true
}

// ReaderSession opens a session for a client that only reads. With
// immutable readers the WAL is first checkpointed into the file, since an
// immutable connection reads the file alone.
func (b *backend) ReaderSession(ctx context.Context) (drivers.Session, error) {
	if !b.immutableReaders {
		return b.Session(ctx)
	}
	if err := b.checkpoint(ctx); err != nil {
		return nil, err
	}
	c, err := b.connectTo(ctx, fileURI(b.path, "immutable=1"), true)
	if err != nil {
		return nil, err
	}
	return b.newSession(c)
}

// checkpoint copies every committed page of the WAL into the file. It
// does not wait on other connections' locks the way a blocking
// checkpoint would (for the busy timeout), but another process's
// checkpoint in progress (the other workers of a point open their readers
// at the same moment) is waited for, up to checkpointWait; a connection
// that keeps pages from being copied for that long fails it, since an
// immutable reader would then miss them.
func (b *backend) checkpoint(ctx context.Context) error {
	const q = "PRAGMA wal_checkpoint(PASSIVE)"
	deadline := time.Now().Add(checkpointWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		row := []int64{-1, -1, -1} // busy, frames in the WAL, frames copied
		err := b.adminQuery(ctx, "checkpoint for immutable readers", q, nil, func(v []driver.Value) error {
			for i := range min(len(v), len(row)) {
				row[i], _ = v[i].(int64)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if row[0] == 0 && row[1] == row[2] {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sqlite backend %q: %s copied %d of %d WAL frames (busy %d) for %s: another connection holds the WAL, and immutable readers would miss committed pages", b.name, q, row[2], row[1], row[0], checkpointWait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sqlite backend %q: checkpoint for immutable readers: %w", b.name, ctx.Err())
		case <-time.After(pause):
		}
	}
}

// checkpointWait bounds the wait for a checkpoint another connection is
// running or holding up.
const checkpointWait = 10 * time.Second

// fileURI names path as a SQLite URI with the query parameters query. The
// path is escaped, so that '?', '#' and '%' in it stay part of the name
// (a plain path is cut at its first '?' by the Go driver, which reads
// what follows as its own parameters).
func fileURI(path, query string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: query}
	return u.String()
}
