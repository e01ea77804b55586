package postgres

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// fastState is a session's reusable state for counted queries, which it
// frames itself on the pgx connection's pgproto3.Frontend: no pgx rows,
// result reader or context watcher per call, no allocation in steady state.
type fastState struct {
	eqb   pgx.ExtendedQueryBuilder
	bind  pgproto3.Bind
	exec  pgproto3.Execute
	sync  pgproto3.Sync
	query pgproto3.Query
	text  []byte // simple mode: the interpolated statement

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

// watch registers the interrupt for ctx unless it already is, and
// returns the registration's number (0: ctx cannot end).
func (s *Session) watch(ctx context.Context) int64 {
	f := &s.fast
	if ctx.Done() == nil {
		return 0
	}
	if ctx != f.watched {
		s.unwatch()
		if f.cancelDone == nil {
			f.cancelDone = make(chan struct{}, 1)
		}
		f.gen++
		g := f.gen
		f.watched = ctx
		f.stopWatch = context.AfterFunc(ctx, func() { s.interrupt(g) })
	}
	return f.gen
}

// unwatch drops the registration; an interrupt of it still running can
// no longer claim a call (those run under a newer number, or wait for it).
func (s *Session) unwatch() {
	f := &s.fast
	if f.stopWatch != nil {
		f.stopWatch()
		f.stopWatch, f.watched = nil, nil
	}
}

// begin marks a call under registration g as running on pc.
func (s *Session) begin(g int64, pc *pgconn.PgConn) {
	if g != 0 {
		s.fast.pc = pc
		s.fast.active.Store(g)
	}
}

// end marks the call over; if the interrupt claimed it, it first waits
// for the cancel request to be over and clears the socket's deadline.
func (s *Session) end(g int64) {
	f := &s.fast
	if g == 0 || f.active.CompareAndSwap(g, 0) {
		return
	}
	<-f.cancelDone
	_ = f.pc.Conn().SetDeadline(time.Time{})
	f.pc = nil
	f.active.Store(0)
}

// queryCounted runs st and counts its rows without decoding them. ok is
// false when pgx's own path must run the call instead (an argument this
// path cannot encode: pgx reports the error; simple mode without
// standard_conforming_strings or UTF8, which pgx refuses).
func (st *Stmt) queryCounted(ctx context.Context, c *pgx.Conn, args []any) (n int64, ok bool, err error) {
	s := st.s
	f := &s.fast
	pc := c.PgConn()
	fe := pc.Frontend()
	if st.name != "" {
		if !f.bindArgs(st, c.TypeMap(), args) {
			if f.eqb.Build(c.TypeMap(), st.sd, args) != nil {
				return 0, false, nil
			}
			f.bind = pgproto3.Bind{PreparedStatement: st.name, ParameterFormatCodes: f.eqb.ParamFormats,
				Parameters: f.eqb.ParamValues, ResultFormatCodes: f.eqb.ResultFormats}
		}
	} else {
		if f.textOff || pc.ParameterStatus("standard_conforming_strings") != "on" || pc.ParameterStatus("client_encoding") != "UTF8" {
			return 0, false, nil
		}
		var good bool
		if f.text, good = interpolate(f.text[:0], c.TypeMap(), st.parts, args); !good || len(f.text) == 0 {
			return 0, false, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, true, s.fail(ctx, "query "+short(st.sql), err)
	}
	g := s.watch(ctx)
	s.begin(g, pc)
	if err := ctx.Err(); err != nil {
		s.end(g)
		return 0, true, s.fail(ctx, "query "+short(st.sql), err)
	}
	if st.name != "" {
		fe.SendBind(&f.bind)
		fe.SendExecute(&f.exec)
		fe.SendSync(&f.sync)
	} else {
		// The text is copied into the send buffer here and not kept.
		f.query.String = unsafe.String(&f.text[0], len(f.text))
		fe.SendQuery(&f.query)
		f.query.String = ""
	}

	var affected int64
	var qerr, lost error
	rows := st.name != "" && len(st.sd.Fields) > 0
	if lost = fe.Flush(); lost == nil {
	receive:
		for {
			msg, err := fe.Receive()
			if err != nil {
				lost = err
				break
			}
			switch m := msg.(type) {
			case *pgproto3.DataRow:
				n++
			case *pgproto3.RowDescription:
				rows = true
			case *pgproto3.CommandComplete:
				affected = rowsAffected(m.CommandTag)
			case *pgproto3.ErrorResponse:
				if qerr == nil {
					qerr = pgconn.ErrorResponseToPgError(m)
				}
			case *pgproto3.ParameterStatus:
				switch m.Name {
				case "standard_conforming_strings", "client_encoding":
					f.textOff = true
				}
			case *pgproto3.CopyInResponse:
				fe.Send(&pgproto3.CopyFail{Message: "COPY FROM STDIN is not supported by a counted query"})
				if lost = fe.Flush(); lost != nil {
					break receive
				}
			case *pgproto3.ReadyForQuery:
				break receive
			}
		}
	}
	s.end(g)
	if lost != nil {
		// The protocol state is unknown: drop the connection, the next
		// call reconnects (as pgx does on a broken read).
		closeQuietly(s.conn)
		s.conn = nil
		return n, true, s.b.redact(lostError("query "+short(st.sql), withCtx(ctx, lost)))
	}
	if qerr != nil {
		return n, true, s.fail(ctx, "query "+short(st.sql), qerr)
	}
	if n == 0 && !rows {
		n = affected
	}
	return n, true, nil
}

// bindArgs fills f.bind for the common arguments without pgx's type map
// lookups: strings (sent as text, as pgx sends any string) and int64s for
// int8 parameters (binary, as pgx does), the bytes pgx's
// ExtendedQueryBuilder would produce. false: some argument is of another
// kind, and the builder does it.
func (f *fastState) bindArgs(st *Stmt, m *pgtype.Map, args []any) bool {
	sd := st.sd
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
			if sd.ParamOIDs[i] != pgtype.Int8OID {
				return false
			}
			f.valBuf = binary.BigEndian.AppendUint64(f.valBuf, uint64(v))
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
	f.bind = pgproto3.Bind{PreparedStatement: st.name, ParameterFormatCodes: f.fmts, Parameters: f.vals, ResultFormatCodes: f.rfmts}
	return true
}

// interrupt cancels the running counted call of the session as pgx's
// CancelRequestContextWatcherHandler does: a cancel request on a new
// connection, the socket's deadline moved to cancelDeadlineDelay from now
// (past it the call fails and the session reconnects), and a short pause
// so the request cannot land on the session's next statement.
func (s *Session) interrupt(g int64) {
	if !s.fast.active.CompareAndSwap(g, -1) {
		return // no call runs under this registration
	}
	pc := s.fast.pc
	pid := pc.PID()
	deadline := time.Now().Add(cancelDeadlineDelay)
	_ = pc.Conn().SetDeadline(deadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	_ = pc.CancelRequest(ctx) // an unanswered request ends at the deadline
	cancel()
	time.Sleep(cancelSettle)
	// A cut query must be gone on the server before its call returns, so
	// it never overlaps the next measured point (as on the pgx path).
	s.b.waitQueryGone(pid)
	s.fast.cancelDone <- struct{}{}
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
