package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/pgwire"
)

// Session is one client's connection (a pgx.Conn, not a pool).
type Session struct {
	b     *Backend
	conn  *pgx.Conn // nil after a lost connection until the next call
	stmts map[*Stmt]struct{}
	sets  []string // SET statements run by Exec, replayed on reconnect
	seq   int      // names prepared statements
	fast  pgwire.Counter
}

// Stmt is a statement of one session: prepared on the server in extended
// mode, kept as text in simple mode.
type Stmt struct {
	s    *Session
	sql  string
	w    pgwire.Statement // prepared on the server (its Name) or simple
	cols []string         // column names of the last collected result
}

// Columns returns the column names of the last Query that collected rows.
func (st *Stmt) Columns() []string { return st.cols }

var (
	_ drivers.Session = (*Session)(nil)
	_ drivers.Stmt    = (*Stmt)(nil)
)

// Session opens a new connection for one client.
func (b *Backend) Session(ctx context.Context) (drivers.Session, error) {
	c, err := b.connectSession(ctx)
	if err != nil {
		return nil, b.redact(fmt.Errorf("%s: session: connect to database %q: %w", b.name, b.database, withCtx(ctx, err)))
	}
	b.sessions.Add(1)
	if b.raw {
		pgwire.RawSessionOpened()
	}
	s := &Session{b: b, conn: c, stmts: map[*Stmt]struct{}{}}
	s.fast.CancelDelay, s.fast.Gone = b.cancelDelay, b.gone.Wait
	return s, nil
}

// ready returns the connection, reconnecting after a lost one and
// restoring the session's prepared statements and SET statements.
func (s *Session) ready(ctx context.Context) (*pgx.Conn, error) {
	if s.conn != nil {
		return s.conn, nil
	}
	if s.stmts == nil {
		return nil, errors.New(s.b.name + ": session is closed")
	}
	s.fast.Reset()
	c, err := s.b.connectSession(ctx)
	if err != nil {
		return nil, s.b.redact(fmt.Errorf("%s: reconnect after a lost connection: %w: %w", s.b.name, drivers.ErrConnLost, withCtx(ctx, err)))
	}
	for _, q := range s.sets {
		if _, err := c.Exec(ctx, q); err != nil {
			closeQuietly(c)
			return nil, fmt.Errorf("%s: reconnect: replay %q: %w", s.b.name, q, withCtx(ctx, err))
		}
	}
	for st := range s.stmts {
		if st.w.Name == "" {
			continue
		}
		sd, err := c.Prepare(ctx, st.w.Name, st.sql)
		if err != nil {
			closeQuietly(c)
			return nil, fmt.Errorf("%s: reconnect: prepare %q: %w", s.b.name, st.sql, withCtx(ctx, err))
		}
		st.w.Desc = sd
	}
	s.conn = c
	return c, nil
}

// pgxConn returns the connection for a call of pgx's own, after the
// counted calls' leftovers (see handOver).
func (s *Session) pgxConn(ctx context.Context) (*pgx.Conn, error) {
	c, err := s.ready(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.handOver(); err != nil {
		return nil, err
	}
	return c, nil
}

// fail wraps err of a call; when the connection died it is dropped, so the
// next call reconnects, and the error says so.
func (s *Session) fail(ctx context.Context, what string, err error) error {
	err = withCtx(ctx, err)
	if s.conn != nil && s.conn.IsClosed() {
		closeQuietly(s.conn)
		s.conn = nil
		return s.b.redact(lostError(s.b.name, what, err))
	}
	return s.b.redact(fmt.Errorf("%s: %s: %w", s.b.name, what, err))
}

// countedFail wraps err of a counted call (see fail); a lost connection
// (pgwire.LostError) is dropped, so the next call reconnects.
func (s *Session) countedFail(ctx context.Context, what string, err error) error {
	var lost *pgwire.LostError
	if !errors.As(err, &lost) {
		return s.fail(ctx, what, err)
	}
	if lost.Idle {
		what = "read the server's messages"
	}
	closeQuietly(s.conn)
	s.conn = nil
	return s.b.redact(lostError(s.b.name, what, withCtx(ctx, lost.Err)))
}

// handOver readies the session's connection for pgx after counted calls
// (pgwire.Counter.HandOver).
func (s *Session) handOver() error {
	if err := s.fast.HandOver(s.conn); err != nil {
		return s.countedFail(context.Background(), "", err)
	}
	return nil
}

// lostError says a call failed because its connection was lost.
func lostError(name, what string, err error) error {
	return fmt.Errorf("%s: %s: %w (the session reconnects on its next call): %w", name, what, drivers.ErrConnLost, err)
}

// Exec runs sql (possibly several statements) with the simple protocol.
func (s *Session) Exec(ctx context.Context, sql string) error {
	if isTxControl(sql) {
		c, err := s.ready(ctx)
		if err != nil {
			return err
		}
		if err := s.fast.Exec(ctx, c, sql); err != nil {
			return s.countedFail(ctx, "exec "+short(sql), err)
		}
		return nil
	}
	return s.execPgx(ctx, sql)
}

// execPgx runs sql through pgx's own Exec.
func (s *Session) execPgx(ctx context.Context, sql string) error {
	c, err := s.pgxConn(ctx)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, sql); err != nil {
		return s.fail(ctx, "exec "+short(sql), err)
	}
	if isSessionSet(sql) {
		s.sets = append(s.sets, sql)
	}
	return nil
}

// isTxControl reports the statements a write transaction begins and ends
// with, which Exec sends as a counted query sends its own.
func isTxControl(sql string) bool {
	switch sql {
	case "BEGIN", "COMMIT", "ROLLBACK":
		return true
	}
	return false
}

// isSessionSet reports a SET that lasts for the session (not SET LOCAL or
// SET TRANSACTION), so a reconnect must run it again.
func isSessionSet(sql string) bool {
	f := strings.Fields(sql)
	if len(f) < 2 || !strings.EqualFold(f[0], "SET") {
		return false
	}
	switch strings.ToUpper(f[1]) {
	case "LOCAL", "TRANSACTION", "CONSTRAINTS":
		return false
	}
	return true
}

// Prepare readies sql for repeated calls.
func (s *Session) Prepare(ctx context.Context, sql string) (drivers.Stmt, error) {
	c, err := s.pgxConn(ctx)
	if err != nil {
		return nil, err
	}
	st := &Stmt{s: s, sql: sql}
	if s.b.protocol == ProtocolExtended {
		s.seq++
		name := "mentat_" + strconv.Itoa(s.seq)
		sd, err := c.Prepare(ctx, name, sql)
		if err != nil {
			return nil, s.fail(ctx, "prepare "+short(sql), err)
		}
		st.w = pgwire.Statement{Name: name, Desc: sd}
	} else {
		st.w = pgwire.Simple(sql)
	}
	s.stmts[st] = struct{}{}
	return st, nil
}

// Close closes the connection.
func (s *Session) Close() error {
	s.fast.Close()
	if s.conn != nil {
		closeQuietly(s.conn)
		s.conn = nil
	}
	if s.stmts != nil {
		s.b.sessions.Add(-1)
		if s.b.raw {
			pgwire.RawSessionClosed()
		}
		s.stmts = nil
	}
	return nil
}

// Query runs the statement. With dst nil the rows are only counted: no
// value is decoded. A statement returning no columns (INSERT, UPDATE)
// returns the number of rows it affected.
func (st *Stmt) Query(ctx context.Context, args []any, dst *[][]any) (int64, error) {
	c, err := st.s.ready(ctx)
	if err != nil {
		return 0, err
	}
	if dst == nil {
		if n, ok, err := st.s.fast.Query(ctx, c, &st.w, args); ok {
			if err != nil {
				return n, st.s.countedFail(ctx, "query "+short(st.sql), err)
			}
			return n, nil
		}
	}
	if err := st.s.handOver(); err != nil {
		return 0, err
	}
	sql := st.sql
	if st.w.Name != "" {
		sql = st.w.Name // pgx runs the prepared statement of that name
	}
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, st.s.fail(ctx, "query "+short(st.sql), err)
	}
	var n int64
	if dst == nil {
		for rows.Next() {
			n++
		}
	} else {
		fields := rows.FieldDescriptions()
		st.cols = st.cols[:0]
		for _, f := range fields {
			st.cols = append(st.cols, f.Name)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return n, st.s.fail(ctx, "query "+short(st.sql)+": decode row", err)
			}
			raw := rows.RawValues()
			row := make([]any, len(vals))
			for i, v := range vals {
				row[i] = convert(v, fields[i].DataTypeOID, fields[i].Format, raw[i])
			}
			*dst = append(*dst, row)
			n++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return n, st.s.fail(ctx, "query "+short(st.sql), err)
	}
	if n == 0 && len(rows.FieldDescriptions()) == 0 {
		n = rows.CommandTag().RowsAffected()
	}
	return n, nil
}

// Close deallocates the statement on the server.
func (st *Stmt) Close() error {
	s := st.s
	if _, ok := s.stmts[st]; !ok {
		return nil
	}
	delete(s.stmts, st)
	if st.w.Name == "" || s.conn == nil {
		return nil
	}
	if err := s.handOver(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.conn.Deallocate(ctx, st.w.Name); err != nil {
		return s.fail(ctx, "close statement "+short(st.sql), err)
	}
	return nil
}

// convert turns a decoded value into int64, float64, string, bool,
// []byte, time.Time or nil. Integral numerics (SUM of integers) become
// int64, other numerics float64; unknown types their text.
func convert(v any, oid uint32, format int16, raw []byte) any {
	switch x := v.(type) {
	case nil, int64, float64, string, bool, time.Time:
		return x
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return append([]byte(nil), x...)
	case [16]byte:
		if oid == pgtype.UUIDOID {
			return formatUUID(x)
		}
	case pgtype.Numeric:
		if !x.Valid {
			return nil
		}
		if i, err := x.Int64Value(); err == nil {
			return i.Int64
		}
		if f, err := x.Float64Value(); err == nil {
			return f.Float64
		}
	}
	switch oid {
	case pgtype.JSONOID:
		return string(raw)
	case pgtype.JSONBOID:
		if format == pgtype.BinaryFormatCode && len(raw) > 0 {
			return string(raw[1:]) // version byte
		}
		return string(raw)
	}
	if format == pgtype.TextFormatCode {
		return string(raw)
	}
	if vr, ok := v.(driver.Valuer); ok {
		if dv, err := vr.Value(); err == nil {
			switch d := dv.(type) {
			case nil, int64, float64, string, bool, time.Time:
				return d
			case []byte:
				return string(d)
			}
		}
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}

func formatUUID(u [16]byte) string {
	const hexDigits = "0123456789abcdef"
	buf := make([]byte, 0, 36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return string(buf)
}

// short quotes the start of a statement for an error message.
func short(sql string) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if r := []rune(sql); len(r) > 80 {
		sql = string(r[:77]) + "..."
	}
	return strconv.Quote(sql)
}
