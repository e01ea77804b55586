package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// session is one client's connection. Its statements are closed with it.
type session struct {
	b *backend

	// mu guards conn and stmts against Close from Backend.Close; the query
	// path does not take it (a session is used by one goroutine).
	mu    sync.Mutex
	conn  *sqlite3.SQLiteConn
	stmts map[*stmt]struct{}

	w     watcher // interrupts statements when their context ends
	hasDB bool    // w.db was looked up
}

var errClosed = errors.New("session is closed")

func (s *session) Exec(ctx context.Context, sql string) error {
	c := s.conn
	if c == nil {
		return s.b.wrap("exec", sql, errClosed)
	}
	if _, err := c.ExecContext(ctx, sql, nil); err != nil {
		return s.b.wrap("exec", sql, err)
	}
	return nil
}

func (s *session) Prepare(ctx context.Context, sql string) (drivers.Stmt, error) {
	c := s.conn
	if c == nil {
		return nil, s.b.wrap("prepare", sql, errClosed)
	}
	// For text without a statement go-sqlite3 returns a statement with a
	// nil handle, which crashes when run.
	if !hasStatement(sql) {
		return nil, s.b.wrap("prepare", sql, errors.New("no statement (only blanks, comments or semicolons)"))
	}
	if err := ctx.Err(); err != nil {
		return nil, s.b.wrap("prepare", sql, err)
	}
	ds, err := c.PrepareContext(ctx, sql)
	if err != nil {
		return nil, s.b.wrap("prepare", sql, err)
	}
	st := &stmt{sess: s, st: ds.(*sqlite3.SQLiteStmt), sql: sql, nin: ds.NumInput()}
	if s.interruptible() {
		st.cnt = newCounter(st.st, s.w.db, st.nin)
	}
	s.mu.Lock()
	s.stmts[st] = struct{}{}
	s.mu.Unlock()
	return st, nil
}

func (s *session) Close() error {
	s.unwatch()
	s.mu.Lock()
	if s.conn == nil {
		s.mu.Unlock()
		return nil
	}
	s.b.ev.foldSession(s)
	var errs []error
	for st := range s.stmts {
		if err := st.finalize(); err != nil {
			errs = append(errs, s.b.wrap("close statement", st.sql, err))
		}
	}
	s.stmts = nil
	if err := s.conn.Close(); err != nil {
		errs = append(errs, fmt.Errorf("sqlite backend %q: close session: %w", s.b.name, err))
	}
	s.conn = nil
	s.mu.Unlock()
	s.b.open.Remove(s)
	return errors.Join(errs...)
}

// hasStatement reports whether sql holds more than what SQLite skips
// before a statement: its whitespace, comments and semicolons.
func hasStatement(sql string) bool {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == ' ' || c == ';' || (c >= '\t' && c <= '\r'):
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return false
			}
			i += j
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 3
		default:
			return true
		}
	}
	return false
}

// stmt is a prepared statement. args and vals are reused between calls so
// that a counted query allocates next to nothing in this package.
type stmt struct {
	sess *session
	st   *sqlite3.SQLiteStmt
	sql  string
	nin  int

	args []driver.NamedValue
	vals []driver.Value
	cols []string // column names of the last collected result

	// cnt runs counted queries in one cgo call (nil: go-sqlite3's path
	// only). run keeps Close from finalizing the statement under it, as
	// go-sqlite3's own lock does on its path.
	run sync.Mutex
	cnt *counter
}

// finalize closes go-sqlite3's statement and frees the counter's memory
// once no counted query runs.
func (s *stmt) finalize() error {
	s.run.Lock()
	defer s.run.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	s.st = nil
	if s.cnt != nil {
		s.cnt.free()
		s.cnt = nil
	}
	return err
}

// Columns returns the column names of the last Query that collected rows.
func (s *stmt) Columns() []string { return s.cols }

// maxRowChunk caps how many rows' worth of values one allocation holds
// when rows are collected; chunks start at one row so that a point lookup
// allocates only what it returns.
const maxRowChunk = 64

func (s *stmt) Query(ctx context.Context, args []any, dst *[][]any) (int64, error) {
	if len(args) != s.nin {
		return 0, s.sess.b.wrap("query", s.sql, fmt.Errorf("got %d parameters, the statement has %d", len(args), s.nin))
	}
	s.args = s.args[:0]
	for i, a := range args {
		v, err := convertArg(a)
		if err != nil {
			return 0, s.sess.b.wrap("query", s.sql, fmt.Errorf("parameter %d: %w", i+1, err))
		}
		s.args = append(s.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	qctx := ctx
	if ctx.Done() != nil && s.sess.interruptible() {
		if err := ctx.Err(); err != nil {
			return 0, s.sess.b.wrap("query", s.sql, err)
		}
		s.sess.begin(ctx)
		defer s.sess.end()
		qctx = context.Background()
	}
	// Released before end: a Close waiting for it holds the session's lock.
	s.run.Lock()
	n, err := s.run1(ctx, qctx, dst)
	s.run.Unlock()
	return n, err
}

// run1 runs the statement with s.args bound; s.run is held.
func (s *stmt) run1(ctx, qctx context.Context, dst *[][]any) (int64, error) {
	if s.st == nil { // closed with its session meanwhile
		return 0, s.sess.b.wrap("query", s.sql, errors.New("statement is closed"))
	}
	if dst == nil && s.cnt != nil {
		if n, err, ok := s.cnt.count(s.args); ok {
			if err != nil {
				return n, s.sess.b.wrap("query", s.sql, ctxErr(ctx, err))
			}
			return n, nil
		}
	}
	rows, err := s.st.QueryContext(qctx, s.args)
	if err != nil {
		return 0, s.sess.b.wrap("query", s.sql, ctxErr(ctx, err))
	}
	var n int64
	if dst == nil {
		// A nil destination makes go-sqlite3 step without reading columns.
		for {
			if err = rows.Next(nil); err != nil {
				break
			}
			n++
		}
	} else {
		s.cols = rows.Columns()
		ncol := len(s.cols)
		if cap(s.vals) < ncol {
			s.vals = make([]driver.Value, ncol)
		}
		vals := s.vals[:ncol]
		var chunk []any
		chunkRows := 1
		for {
			if err = rows.Next(vals); err != nil {
				break
			}
			if len(chunk) < ncol {
				chunk = make([]any, ncol*chunkRows)
				chunkRows = min(2*chunkRows, maxRowChunk)
			}
			row := chunk[:ncol:ncol]
			chunk = chunk[ncol:]
			// go-sqlite3 already returns owned int64, float64, string
			// (TEXT), []byte (BLOB), time.Time, bool (BOOLEAN) and nil.
			for i, v := range vals {
				row[i] = v
			}
			*dst = append(*dst, row)
			n++
		}
		clear(vals)
	}
	cerr := rows.Close()
	if err != io.EOF {
		return n, s.sess.b.wrap("query", s.sql, ctxErr(ctx, err))
	}
	if cerr != nil {
		return n, s.sess.b.wrap("query", s.sql, ctxErr(ctx, cerr))
	}
	return n, nil
}

// interruptible reports whether the session interrupts its statements
// itself (see watcher).
func (s *session) interruptible() bool {
	if !s.hasDB {
		s.w.db, s.hasDB = dbHandle(s.conn), true
	}
	return s.w.db != nil
}

// ctxErr reports the end of ctx rather than the interrupt it caused, as
// go-sqlite3 does for the calls it watches itself.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrInterrupt {
			return cerr
		}
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

func (s *stmt) Close() error {
	sess := s.sess
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.stmts == nil { // the session closed it already
		return nil
	}
	delete(sess.stmts, s)
	sess.b.ev.foldStmt(s)
	err := s.finalize()
	if err != nil {
		return sess.b.wrap("close statement", s.sql, err)
	}
	return nil
}
