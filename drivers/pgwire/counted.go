package pgwire

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// Statement is a statement as a counted call runs it: a statement
// prepared on the server (Name and Desc, from pgx.Conn.Prepare), or one
// for the simple protocol (Simple), whose arguments are interpolated
// into its text as pgx's simple protocol does.
type Statement struct {
	Name string                       // the prepared statement's name; "" for the simple protocol
	Desc *pgconn.StatementDescription // Name's parameter and result types

	parts []any // simple protocol: the text split at its placeholders, see splitSQL
}

// Simple is sql as the simple protocol's counted calls run it.
func Simple(sql string) Statement { return Statement{parts: splitSQL(sql)} }

// A LostError is a counted call's error when the connection can no longer
// be used (the protocol state is unknown, or the server ended the
// session): the caller closes the connection and connects again. Other
// errors (the server's, the context's) leave the connection usable.
type LostError struct {
	// Idle is set when the messages the server sent between calls lost
	// it, not the call itself.
	Idle bool
	Err  error
}

func (e *LostError) Error() string { return e.Err.Error() }
func (e *LostError) Unwrap() error { return e.Err }

// Counter runs counted calls (rows counted, none decoded) on a pgx
// connection, framing them itself on the connection's socket: no pgx
// rows, result reader or context watcher per call, no allocation in
// steady state. One Counter serves one session's connection, one call
// at a time; HandOver readies the connection for pgx again, Reset
// forgets a connection that is gone, Close ends the Counter's use.
type Counter struct {
	// CancelDelay bounds how long an interrupted call waits for the
	// server's answer to its cancel request before the socket's deadline
	// ends the call (and the connection), as pgx's DeadlineDelay does;
	// HandOver waits as long for the rest of a message already begun.
	CancelDelay time.Duration
	// Gone, if set, runs with the backend's pid after an interrupted
	// call's cancel request, before the call returns (QueryGone.Wait).
	Gone func(pid uint32)

	eqb   pgx.ExtendedQueryBuilder
	bind  pgproto3.Bind
	exec  pgproto3.Execute
	sync  pgproto3.Sync
	query pgproto3.Query
	text  []byte // simple mode: the interpolated statement
	out   []byte // the encoded messages of a call
	in    wireIn

	// syncedPC is the connection checked free of pgx's buffered or
	// background reads, textPC the one whose settings allow the simple
	// protocol's text; both nil again once pgx runs something (HandOver).
	syncedPC, textPC *pgconn.PgConn

	// bindArgs' reusable parameters, and the result formats of the
	// statement description they were computed for.
	vals    [][]byte
	fmts    []int16
	valBuf  []byte
	rfmts   []int16
	rfmtsSD *pgconn.StatementDescription
	// textOff is set when a counted call changed standard_conforming_strings
	// or client_encoding, which pgx's connection does not see then: the
	// simple protocol's text goes to pgx from then on.
	textOff bool

	// Cancellation. The interrupt is registered once per context (the
	// runner keeps one per client until the ceiling cuts a call), not per
	// call: watched is that context, gen numbers its registrations, and
	// active holds gen while a call runs under it. The interrupt claims
	// the call by swapping active to -1, sends the cancel request for pc,
	// then signals cancelDone; the call waits for that before it returns.
	watched    context.Context
	stopWatch  func() bool
	gen        int64
	active     atomic.Int64
	pc         *pgconn.PgConn
	cancelDone chan struct{}
}

// Reset forgets what was read on a connection that is gone.
func (f *Counter) Reset() { f.in.reset() }

// Close drops the interrupt's registration and what was read.
func (f *Counter) Close() {
	f.unwatch()
	f.in.reset()
}

// watch registers the interrupt for ctx unless it already is, and
// returns the registration's number (0: ctx cannot end).
func (f *Counter) watch(ctx context.Context) int64 {
	if ctx.Done() == nil {
		return 0
	}
	if ctx != f.watched {
		f.unwatch()
		if f.cancelDone == nil {
			f.cancelDone = make(chan struct{}, 1)
		}
		f.gen++
		g := f.gen
		f.watched = ctx
		f.stopWatch = context.AfterFunc(ctx, func() { f.interrupt(g) })
	}
	return f.gen
}

// unwatch drops the registration; an interrupt of it still running can
// no longer claim a call (those run under a newer number, or wait for it).
func (f *Counter) unwatch() {
	if f.stopWatch != nil {
		f.stopWatch()
		f.stopWatch, f.watched = nil, nil
	}
}

// begin marks a call under registration g as running on pc.
func (f *Counter) begin(g int64, pc *pgconn.PgConn) {
	if g != 0 {
		f.pc = pc
		f.active.Store(g)
	}
}

// end marks the call over; if the interrupt claimed it, it first waits
// for the cancel request to be over and clears the socket's deadline.
func (f *Counter) end(g int64) {
	if g == 0 || f.active.CompareAndSwap(g, 0) {
		return
	}
	<-f.cancelDone
	_ = f.pc.Conn().SetDeadline(time.Time{})
	f.pc = nil
	f.active.Store(0)
}

// Query runs st on c with args and counts its rows without decoding
// them; a statement without rows (INSERT, UPDATE) returns the count of
// its command tag. ok is false when pgx's own path must run the call
// instead (an argument this path cannot encode: pgx reports the error;
// simple mode without standard_conforming_strings or UTF8, which pgx
// refuses). The messages are encoded by pgproto3 as pgx's Frontend
// encodes them and written and read on the connection's socket itself
// (see wireIn). A context that ends during the call sends the server a
// cancel request, as pgx does. An error is a *LostError when c can no
// longer be used.
func (f *Counter) Query(ctx context.Context, c *pgx.Conn, st *Statement, args []any) (n int64, ok bool, err error) {
	pc := c.PgConn()
	if st.Name != "" {
		if !f.bindArgs(st, c.TypeMap(), args) {
			if f.eqb.Build(c.TypeMap(), st.Desc, args) != nil {
				return 0, false, nil
			}
			f.bind = pgproto3.Bind{PreparedStatement: st.Name, ParameterFormatCodes: f.eqb.ParamFormats,
				Parameters: f.eqb.ParamValues, ResultFormatCodes: f.eqb.ResultFormats}
		}
	} else {
		// The two settings pgx's simple protocol needs, looked up once
		// per connection until pgx runs something on it (HandOver).
		if f.textOff {
			return 0, false, nil
		}
		if f.textPC != pc {
			if pc.ParameterStatus("standard_conforming_strings") != "on" || pc.ParameterStatus("client_encoding") != "UTF8" {
				return 0, false, nil
			}
			f.textPC = pc
		}
		var good bool
		if f.text, good = interpolate(f.text[:0], c.TypeMap(), st.parts, args); !good || len(f.text) == 0 {
			return 0, false, nil
		}
	}
	out := f.out[:0]
	var lost error
	if st.Name != "" {
		out, lost = f.bind.Encode(out)
		if lost == nil {
			out, _ = f.exec.Encode(out)
			out, _ = f.sync.Encode(out)
		}
	} else {
		// The text is copied into out here and not kept.
		f.query.String = unsafe.String(&f.text[0], len(f.text))
		out, lost = f.query.Encode(out)
		f.query.String = ""
	}
	f.out = out
	n, err = f.exchange(ctx, pc, lost, st.Name != "" && len(st.Desc.Fields) > 0)
	return n, true, err
}

// Exec runs sql, one statement without parameters, with the simple
// protocol on c's socket, as a counted query runs: for the BEGIN and
// COMMIT around every write transaction, which through pgx would cost
// its result reader and context watcher, and a hand-over of the
// connection and a check of it before the next counted call. Errors are
// Query's.
func (f *Counter) Exec(ctx context.Context, c *pgx.Conn, sql string) error {
	var lost error
	f.query.String = sql
	f.out, lost = f.query.Encode(f.out[:0])
	f.query.String = ""
	_, err := f.exchange(ctx, c.PgConn(), lost, false)
	return err
}

// exchange writes f.out, the encoded messages of a call on pc (unless lost
// says they could not be encoded), and reads the replies up to
// ReadyForQuery: the rows counted or, without rows (a statement that
// returns none, when rows is false and no RowDescription came), the count
// of its command tag.
func (f *Counter) exchange(ctx context.Context, pc *pgconn.PgConn, lost error, rows bool) (n int64, err error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if f.syncedPC != pc {
		// Nothing of pgx's may be buffered or reading when the socket is
		// read here: checked once per connection until pgx runs
		// something on it. What pgx read past its last ReadyForQuery
		// (the server's asynchronous messages) is handled first, so a
		// stream of notifications cannot keep the buffer from emptying.
		if err := f.takeOver(ctx, pc); err != nil {
			return 0, err
		}
	}
	conn := pc.Conn()
	g := f.watch(ctx)
	f.begin(g, pc)
	if err := ctx.Err(); err != nil {
		f.end(g)
		return 0, err
	}

	var affected int64
	var qerr error
	if lost == nil {
		_, lost = conn.Write(f.out)
	}
	in := &f.in
	for lost == nil {
		t, body, err := in.next(conn)
		if err != nil {
			lost = err
			break
		}
		// The usual messages first, then the rest through the table.
		switch t {
		case 'D':
			if lost = in.m.dataRow.Decode(body); lost == nil {
				n++
			}
			continue
		case '2':
			lost = in.m.bindComplete.Decode(body)
			continue
		case 'C':
			if lost = in.m.commandComplete.Decode(body); lost == nil {
				affected = rowsAffected(in.m.commandComplete.CommandTag)
			}
			continue
		case 'Z':
			lost = in.m.readyForQuery.Decode(body)
		}
		if t == 'Z' {
			break
		}
		msg, err := in.m.decode(t, body)
		if err != nil {
			lost = err
			break
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			rows = true
		case *pgproto3.ErrorResponse:
			if qerr == nil {
				qerr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ParameterStatus:
			f.noteStatus(m)
		case *pgproto3.CopyInResponse:
			if f.out, lost = (&pgproto3.CopyFail{Message: "COPY FROM STDIN is not supported by a counted query"}).Encode(f.out[:0]); lost == nil {
				_, lost = conn.Write(f.out)
			}
		}
	}
	f.end(g)
	if lost != nil {
		// The protocol state is unknown: the caller drops the
		// connection and reconnects (as pgx does on a broken read).
		in.reset()
		return n, &LostError{Err: lost}
	}
	in.settle()
	if qerr != nil {
		return n, qerr
	}
	if n == 0 && !rows {
		n = affected
	}
	return n, nil
}

// noteStatus follows a ParameterStatus a counted call read, which pgx's
// connection does not see: a change of standard_conforming_strings or
// client_encoding sends the simple protocol's text to pgx from then on.
func (f *Counter) noteStatus(m *pgproto3.ParameterStatus) {
	switch m.Name {
	case "standard_conforming_strings", "client_encoding":
		f.textOff = true
	}
}

// takeOver readies pc for counted calls after pgx used it: messages pgx
// buffered after its last ReadyForQuery are handled as idle ones (see
// idleMsg), then PgConn.SyncConn checks that no background read runs
// (it returns at once when nothing is buffered and none does).
func (f *Counter) takeOver(ctx context.Context, pc *pgconn.PgConn) error {
	fe := pc.Frontend()
	var err error
	for fe.ReadBufferLen() > 0 && err == nil {
		var msg pgproto3.BackendMessage
		if msg, err = fe.Receive(); err == nil {
			err = f.idleMsg(msg)
		}
	}
	if err == nil {
		if err = pc.SyncConn(ctx); err == nil {
			f.syncedPC = pc
			return nil
		}
	}
	return &LostError{Idle: true, Err: err}
}

// idleMsg handles a message the server sent while the session was idle,
// as pgx's connection would: a ParameterStatus is noted (as a counted
// call notes it), notices and notifications are dropped (the connection
// has no handler for them); an error response (the server ending the
// session) or anything else is an error that loses the connection.
func (f *Counter) idleMsg(msg pgproto3.BackendMessage) error {
	switch m := msg.(type) {
	case *pgproto3.ParameterStatus:
		f.noteStatus(m)
	case *pgproto3.NoticeResponse, *pgproto3.NotificationResponse:
	case *pgproto3.ErrorResponse:
		return pgconn.ErrorResponseToPgError(m)
	default:
		return fmt.Errorf("unexpected message %T while idle", msg)
	}
	return nil
}

// HandOver readies c for pgx after counted calls; c may be nil (no
// connection). Asynchronous messages that arrived after a counted call's
// ReadyForQuery are in the counted path's buffer, where pgx cannot see
// them; they are handled here (see idleMsg). The connection is checked
// again before the next counted call. An error is a *LostError (Idle).
func (f *Counter) HandOver(c *pgx.Conn) error {
	f.syncedPC, f.textPC = nil, nil
	in := &f.in
	if in.r == in.w || c == nil {
		in.reset()
		return nil
	}
	conn := c.PgConn().Conn()
	var err error
	for in.r < in.w && err == nil {
		t, body, need := in.buffered()
		if need != 0 {
			// The rest of a message the server has begun is on its way.
			_ = conn.SetDeadline(time.Now().Add(f.CancelDelay))
			t, body, err = in.next(conn)
			_ = conn.SetDeadline(time.Time{})
			if err != nil {
				err = fmt.Errorf("%w: %w", errCutShort, err)
				break
			}
		}
		var msg pgproto3.BackendMessage
		if msg, err = in.m.decode(t, body); err == nil {
			err = f.idleMsg(msg)
		}
	}
	in.reset()
	if err != nil {
		return &LostError{Idle: true, Err: err}
	}
	return nil
}

// bindArgs fills f.bind for the common arguments without pgx's type map
// lookups: strings (sent as text, as pgx sends any string) and int64s for
// int8 parameters and for int4 ones they fit (binary, as pgx does), the bytes pgx's
// ExtendedQueryBuilder would produce. false: some argument is of another
// kind, and the builder does it.
func (f *Counter) bindArgs(st *Statement, m *pgtype.Map, args []any) bool {
	sd := st.Desc
	if len(sd.ParamOIDs) != len(args) {
		return false
	}
	f.vals, f.fmts, f.valBuf = f.vals[:0], f.fmts[:0], f.valBuf[:0]
	for i, a := range args {
		start := len(f.valBuf)
		switch v := a.(type) {
		case string:
			f.valBuf = append(f.valBuf, v...)
			f.fmts = append(f.fmts, pgtype.TextFormatCode)
		case int64:
			switch {
			case sd.ParamOIDs[i] == pgtype.Int8OID:
				f.valBuf = binary.BigEndian.AppendUint64(f.valBuf, uint64(v))
			case sd.ParamOIDs[i] == pgtype.Int4OID && v == int64(int32(v)):
				// CAST(:a AS INTEGER), as the write statements have it.
				f.valBuf = binary.BigEndian.AppendUint32(f.valBuf, uint32(int32(v)))
			default:
				return false
			}
			f.fmts = append(f.fmts, pgtype.BinaryFormatCode)
		default:
			return false
		}
		// An earlier value may sit in an array append has since
		// outgrown: it still holds the right bytes.
		f.vals = append(f.vals, f.valBuf[start:len(f.valBuf):len(f.valBuf)])
	}
	if f.rfmtsSD != sd {
		f.rfmts = f.rfmts[:0]
		for _, fd := range sd.Fields {
			f.rfmts = append(f.rfmts, m.FormatCodeForOID(fd.DataTypeOID))
		}
		f.rfmtsSD = sd
	}
	f.bind = pgproto3.Bind{PreparedStatement: st.Name, ParameterFormatCodes: f.fmts, Parameters: f.vals, ResultFormatCodes: f.rfmts}
	return true
}

// interrupt cancels the running counted call as pgx's
// CancelRequestContextWatcherHandler does: a cancel request on a new
// connection, the socket's deadline moved to CancelDelay from now (past
// it the call fails and the session reconnects), and a short pause so
// the request cannot land on the session's next statement.
func (f *Counter) interrupt(g int64) {
	if !f.active.CompareAndSwap(g, -1) {
		return // no call runs under this registration
	}
	pc := f.pc
	pid := pc.PID()
	deadline := time.Now().Add(f.CancelDelay)
	_ = pc.Conn().SetDeadline(deadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	_ = pc.CancelRequest(ctx) // an unanswered request ends at the deadline
	cancel()
	time.Sleep(cancelSettle)
	// A cut query must be gone on the server before its call returns, so
	// it never overlaps the next measured point (as on the pgx path).
	if f.Gone != nil {
		f.Gone(pid)
	}
	f.cancelDone <- struct{}{}
}

// cancelSettle is how long a cancelled call waits after its cancel
// request before the session runs anything else (pgx waits as long).
const cancelSettle = 100 * time.Millisecond

// rowsAffected reads the count at the end of a command tag ("SELECT 5",
// "INSERT 0 5"); 0 without one.
func rowsAffected(tag []byte) int64 {
	var n, mul int64 = 0, 1
	for i := len(tag) - 1; i >= 0; i-- {
		c := tag[i]
		if c < '0' || c > '9' {
			if c != ' ' || mul == 1 {
				return 0
			}
			return n
		}
		n += int64(c-'0') * mul
		mul *= 10
	}
	return 0
}
