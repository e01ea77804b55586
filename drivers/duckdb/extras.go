package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// adminQuery runs one statement with args on the backend's own connection
// and returns its rows.
func (b *backend) adminQuery(ctx context.Context, op, sql string, args []any) ([][]any, error) {
	b.adminMu.Lock()
	defer b.adminMu.Unlock()
	if b.admin.closed() {
		return nil, b.wrap(op, sql, errClosed)
	}
	rows, err := b.admin.query(ctx, sql, args)
	if err != nil {
		return nil, b.wrap(op, sql, err)
	}
	return rows, nil
}

// query prepares, runs and reads one statement; for rare calls only.
func (d *dconn) query(ctx context.Context, sql string, args []any) ([][]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ps mapping.PreparedStatement
	defer mapping.DestroyPrepare(&ps)
	if mapping.Prepare(d.c, sql, &ps) == mapping.StateError {
		return nil, &dbError{msg: mapping.PrepareError(ps)}
	}
	if err := bindArgs(ps, paramTypes(ps), args); err != nil {
		return nil, err
	}
	stop := d.watch(ctx)
	var res mapping.Result
	state := mapping.ExecutePrepared(ps, &res)
	stop()
	defer mapping.DestroyResult(&res)
	if state == mapping.StateError {
		return nil, resultError(ctx, &res)
	}
	var cs colSet
	if err := cs.init(&res); err != nil {
		return nil, err
	}
	var rows [][]any
	for {
		ch := mapping.FetchChunk(res)
		if ch.Ptr == nil {
			return rows, nil
		}
		rows = cs.appendRows(rows, ch, int(mapping.DataChunkGetSize(ch)))
		mapping.DestroyDataChunk(&ch)
	}
}

// statementType prepares sql on the admin connection to learn its kind.
func (b *backend) statementType(ctx context.Context, sql string) (mapping.StatementType, error) {
	b.adminMu.Lock()
	defer b.adminMu.Unlock()
	if b.admin.closed() {
		return 0, b.wrap("explain", sql, errClosed)
	}
	if err := ctx.Err(); err != nil {
		return 0, b.wrap("explain", sql, err)
	}
	var ps mapping.PreparedStatement
	defer mapping.DestroyPrepare(&ps)
	if mapping.Prepare(b.admin.c, sql, &ps) == mapping.StateError {
		return 0, b.wrap("explain", sql, &dbError{msg: mapping.PrepareError(ps)})
	}
	return mapping.PreparedStatementType(ps), nil
}

// Size is the database file plus its WAL, which holds commits not yet
// checkpointed into the file.
func (b *backend) Size(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("duckdb backend %q: size: %w", b.name, err)
	}
	var size int64
	for _, p := range []string{b.path, b.path + ".wal"} {
		fi, err := os.Stat(p)
		switch {
		case err == nil:
			size += fi.Size()
		case !errors.Is(err, os.ErrNotExist):
			return 0, fmt.Errorf("duckdb backend %q: size: %w", b.name, err)
		}
	}
	return size, nil
}

// Explain returns DuckDB's plan tree. DuckDB 1.5 decides between an index
// scan and a sequential scan only when the scan starts, so plain EXPLAIN
// prints "Type: Sequential Scan" even for a lookup that will use an index.
// A SELECT is therefore explained with EXPLAIN ANALYZE, which runs it once
// with args and shows the scan type used and per-operator rows and times;
// other statements, which ANALYZE would execute, get plain EXPLAIN.
func (b *backend) Explain(ctx context.Context, sql string, args []any) (string, error) {
	typ, err := b.statementType(ctx, sql)
	if err != nil {
		return "", err
	}
	prefix := "EXPLAIN "
	if typ == mapping.StatementTypeSelect {
		prefix = "EXPLAIN ANALYZE "
	}
	rows, err := b.adminQuery(ctx, "explain", prefix+sql, args)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, r := range rows {
		if len(r) < 2 {
			return "", b.wrap("explain", sql, fmt.Errorf("plan row has %d columns, want 2", len(r)))
		}
		if s, ok := r[1].(string); ok {
			sb.WriteString(strings.TrimRight(s, "\n"))
			sb.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// ReadSettings reads each setting with current_setting on a connection
// that applied the configured settings, as every session does.
func (b *backend) ReadSettings(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		rows, err := b.adminQuery(ctx, "read setting "+n, "SELECT current_setting(?)::VARCHAR", []any{strings.TrimSpace(n)})
		if err != nil {
			return nil, err
		}
		v := ""
		if len(rows) > 0 && len(rows[0]) > 0 {
			if s, ok := rows[0][0].(string); ok {
				v = s
			}
		}
		out[n] = v
	}
	return out, nil
}

// CacheSetting is the setting CacheSize reads.
func (b *backend) CacheSetting() string { return "memory_limit" }

// CacheSize is DuckDB's memory_limit, the ceiling of its buffer manager.
func (b *backend) CacheSize(ctx context.Context) (int64, error) {
	rows, err := b.adminQuery(ctx, "cache size", "SELECT current_setting('memory_limit')::VARCHAR", nil)
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return 0, fmt.Errorf("duckdb backend %q: cache size: no row", b.name)
	}
	text, _ := rows[0][0].(string)
	n, err := parseBytes(text)
	if err != nil {
		return 0, fmt.Errorf("duckdb backend %q: cache size: memory_limit %q: %w", b.name, text, err)
	}
	return n, nil
}

var byteUnits = map[string]float64{
	"": 1, "B": 1, "BYTES": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40,
}

// parseBytes reads DuckDB's human-readable sizes such as "18.6 GiB".
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, err
	}
	unit, ok := byteUnits[strings.ToUpper(strings.TrimSpace(s[i:]))]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", strings.TrimSpace(s[i:]))
	}
	return int64(num * unit), nil
}

// Version is DuckDB's version string, e.g. "v1.5.6".
func (b *backend) Version(ctx context.Context) (string, error) {
	rows, err := b.adminQuery(ctx, "version", "SELECT version()", nil)
	if err != nil {
		return "", err
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return "", fmt.Errorf("duckdb backend %q: version: no row", b.name)
	}
	v, _ := rows[0][0].(string)
	return v, nil
}

// Drop closes the backend and removes the database file Open connected to
// and its WAL; nothing else.
func (b *backend) Drop(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("duckdb backend %q: drop: %w", b.name, err)
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("duckdb backend %q: drop: %w", b.name, err)
	}
	if err := removeFiles(b.path); err != nil {
		return fmt.Errorf("duckdb backend %q: drop: %w", b.name, err)
	}
	return nil
}
