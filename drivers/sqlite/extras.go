package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// adminQuery runs sql on the backend's own connection and calls fn for
// each row.
func (b *backend) adminQuery(ctx context.Context, op, sql string, args []any, fn func([]driver.Value) error) error {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := convertArg(a)
		if err != nil {
			return b.wrap(op, sql, fmt.Errorf("parameter %d: %w", i+1, err))
		}
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	b.adminMu.Lock()
	defer b.adminMu.Unlock()
	if b.admin == nil {
		return b.wrap(op, sql, errors.New("backend is closed"))
	}
	rows, err := b.admin.QueryContext(ctx, sql, nv)
	if err != nil {
		return b.wrap(op, sql, err)
	}
	defer rows.Close()
	vals := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(vals); err == io.EOF {
			return nil
		} else if err != nil {
			return b.wrap(op, sql, err)
		}
		if err := fn(vals); err != nil {
			return b.wrap(op, sql, err)
		}
	}
}

// readPragma returns a pragma's current value; ok is false when the pragma
// reads back no row (unknown or write-only).
func (b *backend) readPragma(ctx context.Context, name string) (value string, ok bool, err error) {
	err = b.adminQuery(ctx, "read setting", "PRAGMA "+name, nil, func(v []driver.Value) error {
		if !ok && len(v) > 0 {
			value, ok = text(v[0]), true
		}
		return nil
	})
	return value, ok, err
}

func text(v driver.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

// Size is the database file's used pages plus the WAL file, which holds
// pages not yet checkpointed into it.
func (b *backend) Size(ctx context.Context) (int64, error) {
	const q = "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
	var size int64
	err := b.adminQuery(ctx, "size", q, nil, func(v []driver.Value) error {
		n, ok := v[0].(int64)
		if !ok {
			return fmt.Errorf("unexpected size value %T", v[0])
		}
		size = n
		return nil
	})
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(b.path + "-wal")
	switch {
	case err == nil:
		size += fi.Size()
	case !errors.Is(err, os.ErrNotExist):
		return 0, fmt.Errorf("sqlite backend %q: size: %w", b.name, err)
	}
	return size, nil
}

// Explain returns EXPLAIN QUERY PLAN as an indented tree, one line per
// plan step, as the sqlite3 shell prints it.
func (b *backend) Explain(ctx context.Context, sql string, args []any) (string, error) {
	depth := map[int64]int{}
	var sb strings.Builder
	err := b.adminQuery(ctx, "explain", "EXPLAIN QUERY PLAN "+sql, args, func(v []driver.Value) error {
		if len(v) < 4 {
			return fmt.Errorf("plan row has %d columns, want 4", len(v))
		}
		id, _ := v[0].(int64)
		parent, _ := v[1].(int64)
		d := 0
		if pd, ok := depth[parent]; ok {
			d = pd + 1
		}
		depth[id] = d
		sb.WriteString(strings.Repeat("  ", d))
		sb.WriteString(text(v[3]))
		sb.WriteByte('\n')
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// ReadSettings reads each pragma; write-only pragmas read back as "".
func (b *backend) ReadSettings(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		name := strings.ToLower(strings.TrimSpace(n))
		if !pragmaName.MatchString(name) {
			return nil, fmt.Errorf("sqlite backend %q: read setting %q: not a pragma name", b.name, n)
		}
		v, _, err := b.readPragma(ctx, name)
		if err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, nil
}

func (b *backend) Version(ctx context.Context) (string, error) {
	var v string
	err := b.adminQuery(ctx, "version", "SELECT sqlite_version()", nil, func(r []driver.Value) error {
		v = text(r[0])
		return nil
	})
	return v, err
}

// Drop closes the backend and removes the database file Open connected to
// with its WAL, shared-memory and rollback-journal files; nothing else.
func (b *backend) Drop(ctx context.Context) error {
	if err := b.Close(); err != nil {
		return fmt.Errorf("sqlite backend %q: drop: %w", b.name, err)
	}
	return b.removeFiles()
}

func (b *backend) removeFiles() error {
	var errs []error
	for _, p := range []string{b.path, b.path + "-wal", b.path + "-shm", b.path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("sqlite backend %q: drop: %w", b.name, err))
		}
	}
	return errors.Join(errs...)
}

// ColdStart implements drivers.ColdStarter: closing the store is its
// restart; its files are the database and its WAL and shared memory.
func (b *backend) ColdStart(context.Context) (drivers.ColdStart, error) {
	return drivers.ColdStart{Files: []string{b.path, b.path + "-wal", b.path + "-shm"}}, nil
}
