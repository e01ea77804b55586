package duckdb

import (
	"context"
	"errors"
	"sync"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var errClosed = errors.New("closed")

// session is one client's DuckDB connection.
type session struct {
	b *backend
	d *dconn

	// mu serialises the session's calls with Close, which Backend.Close
	// may call from another goroutine.
	mu    sync.Mutex
	stmts map[*stmt]struct{}
}

func (s *session) Exec(ctx context.Context, sql string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d.closed() {
		return s.b.wrap("exec", sql, errClosed)
	}
	if err := s.d.exec(ctx, sql); err != nil {
		return s.b.wrap("exec", sql, err)
	}
	return nil
}

// Prepare prepares sql on the session's connection. It fails for text
// holding more than one statement.
func (s *session) Prepare(ctx context.Context, sql string) (drivers.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d.closed() {
		return nil, s.b.wrap("prepare", sql, errClosed)
	}
	if err := ctx.Err(); err != nil {
		return nil, s.b.wrap("prepare", sql, err)
	}
	var ps mapping.PreparedStatement
	if mapping.Prepare(s.d.c, sql, &ps) == mapping.StateError {
		msg := mapping.PrepareError(ps)
		mapping.DestroyPrepare(&ps)
		return nil, s.b.wrap("prepare", sql, &dbError{msg: msg})
	}
	st := &stmt{s: s, sql: sql, ps: ps, types: paramTypes(ps)}
	s.stmts[st] = struct{}{}
	return st, nil
}

func (s *session) interrupt() { s.d.interrupt() }

// Close destroys the session's statements and closes its connection.
func (s *session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d.closed() {
		return nil
	}
	for st := range s.stmts {
		mapping.DestroyPrepare(&st.ps)
	}
	s.stmts = nil
	s.d.disconnect()
	s.b.open.Remove(s)
	return nil
}

// stmt is a statement prepared on its session's connection.
type stmt struct {
	s     *session
	sql   string
	ps    mapping.PreparedStatement
	types []mapping.Type
	cols  colSet   // reused column readers for dst
	names []string // column names of the last collected result
}

// Columns returns the column names of the last Query that collected rows.
func (st *stmt) Columns() []string { return st.names }

// Query executes the statement. With dst nil it only adds up the sizes of
// the result's data chunks: no value is read and nothing is allocated per
// row. The result is materialised by DuckDB (as duckdb-go does), so the
// whole query runs inside the interruptible execute call. For INSERT,
// UPDATE and DELETE without RETURNING it returns the rows changed.
func (st *stmt) Query(ctx context.Context, args []any, dst *[][]any) (int64, error) {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.ps.Ptr == nil || s.d.closed() {
		return 0, s.b.wrap("query", st.sql, errClosed)
	}
	if err := ctx.Err(); err != nil {
		return 0, s.b.wrap("query", st.sql, err)
	}
	if err := bindArgs(st.ps, st.types, args); err != nil {
		return 0, s.b.wrap("query", st.sql, err)
	}
	stop := s.d.watch(ctx)
	var res mapping.Result
	state := mapping.ExecutePrepared(st.ps, &res)
	stop()
	defer mapping.DestroyResult(&res)
	if state == mapping.StateError {
		return 0, s.b.wrap("query", st.sql, resultError(ctx, &res))
	}
	switch mapping.ResultReturnType(res) {
	case mapping.ResultTypeChangedRows:
		// DuckDB answers DML with a one-row count; report it as the rows
		// affected, as the other drivers do, and collect nothing.
		return int64(mapping.RowsChanged(&res)), nil
	case mapping.ResultTypeNothing:
		return 0, nil
	}
	if dst != nil {
		if err := st.cols.init(&res); err != nil {
			return 0, s.b.wrap("query", st.sql, err)
		}
		// A new slice: a caller may keep the previous call's names.
		n := mapping.ColumnCount(&res)
		names := make([]string, 0, n)
		for i := mapping.IdxT(0); i < n; i++ {
			names = append(names, mapping.ColumnName(&res, i))
		}
		st.names = names
	}
	var n int64
	for {
		ch := mapping.FetchChunk(res)
		if ch.Ptr == nil {
			break
		}
		size := int(mapping.DataChunkGetSize(ch))
		if dst != nil {
			*dst = st.cols.appendRows(*dst, ch, size)
		}
		n += int64(size)
		mapping.DestroyDataChunk(&ch)
	}
	return n, nil
}

func (st *stmt) Close() error {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.ps.Ptr == nil {
		return nil
	}
	mapping.DestroyPrepare(&st.ps)
	delete(s.stmts, st)
	return nil
}
