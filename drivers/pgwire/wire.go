package pgwire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
)

// wireIn is the receive side of a counted call: the connection's socket
// read straight into the session's own buffer and each message decoded in
// place by pgproto3's own decoder, as pgx's Frontend.Receive decodes it,
// without its background reader (a mutex and a defer per read), chunk
// reader and per-message dispatch. pgx's connection is synchronised
// before the first such call (PgConn.SyncConn: nothing buffered, no
// background read), and messages that arrive after a ReadyForQuery (the
// server's asynchronous ones) stay in buf[r:w] until the next counted
// call reads them or handOver settles them before pgx reads again.
type wireIn struct {
	buf  []byte
	r, w int // unread bytes: buf[r:w]
	m    wireMsgs
}

// wireMsgs holds one reusable message of each type a server may send
// after the start-up, the types pgx's Frontend.Receive decodes.
type wireMsgs struct {
	parseComplete        pgproto3.ParseComplete
	bindComplete         pgproto3.BindComplete
	closeComplete        pgproto3.CloseComplete
	notificationResponse pgproto3.NotificationResponse
	copyDone             pgproto3.CopyDone
	commandComplete      pgproto3.CommandComplete
	copyData             pgproto3.CopyData
	dataRow              pgproto3.DataRow
	errorResponse        pgproto3.ErrorResponse
	copyInResponse       pgproto3.CopyInResponse
	copyOutResponse      pgproto3.CopyOutResponse
	emptyQueryResponse   pgproto3.EmptyQueryResponse
	backendKeyData       pgproto3.BackendKeyData
	noData               pgproto3.NoData
	noticeResponse       pgproto3.NoticeResponse
	portalSuspended      pgproto3.PortalSuspended
	parameterStatus      pgproto3.ParameterStatus
	parameterDescription pgproto3.ParameterDescription
	rowDescription       pgproto3.RowDescription
	functionCallResponse pgproto3.FunctionCallResponse
	copyBothResponse     pgproto3.CopyBothResponse
	readyForQuery        pgproto3.ReadyForQuery
	negotiateProtocol    pgproto3.NegotiateProtocolVersion
}

// wireBufSize is the receive buffer's usual size (pgx's chunk reader's);
// a larger message grows it for the call, and it shrinks back after.
const wireBufSize = 8192

// next returns the next message's type and body (valid until the next
// call), reading from conn as needed. Errors are those of pgx's
// Frontend.Receive: a short read is io.ErrUnexpectedEOF.
func (in *wireIn) next(conn io.Reader) (byte, []byte, error) {
	for {
		if t, body, need := in.buffered(); need == 0 {
			return t, body, nil
		} else if need < 0 {
			return 0, nil, fmt.Errorf("invalid message length: %d", int32(binary.BigEndian.Uint32(in.buf[in.r+1:])))
		} else {
			in.fit(need)
		}
		n, err := conn.Read(in.buf[in.w:])
		in.w += n
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, nil, err
		}
	}
}

// buffered returns the next message if it is all in the buffer (need 0),
// or how many bytes it takes from buf[r] on (need > 0), or need < 0 for a
// length below 4.
func (in *wireIn) buffered() (t byte, body []byte, need int) {
	n := in.w - in.r
	if n < 5 {
		return 0, nil, 5
	}
	l := int(int32(binary.BigEndian.Uint32(in.buf[in.r+1:])))
	if l < 4 {
		return 0, nil, -1
	}
	if n < 1+l {
		return 0, nil, 1 + l
	}
	t = in.buf[in.r]
	body = in.buf[in.r+5 : in.r+1+l : in.r+1+l]
	in.r += 1 + l
	return t, body, 0
}

// fit makes room for need bytes from buf[r] on.
func (in *wireIn) fit(need int) {
	if in.r == in.w {
		in.r, in.w = 0, 0
	}
	if len(in.buf)-in.r >= need {
		return
	}
	if len(in.buf) >= need {
		in.w = copy(in.buf, in.buf[in.r:in.w])
		in.r = 0
		return
	}
	buf := make([]byte, max(need, wireBufSize))
	in.w = copy(buf, in.buf[in.r:in.w])
	in.r = 0
	in.buf = buf
}

// settle ends a call: a buffer grown for a large message goes.
func (in *wireIn) settle() {
	if in.r == in.w {
		in.r, in.w = 0, 0
		if len(in.buf) > 8*wireBufSize {
			in.buf = nil
		}
	}
}

// reset forgets what was read on a connection that is gone.
func (in *wireIn) reset() { in.r, in.w = 0, 0 }

// decode checks body as a message of type t with pgproto3's decoder of
// that type (Frontend.Receive's check) and returns the decoded message.
func (m *wireMsgs) decode(t byte, body []byte) (pgproto3.BackendMessage, error) {
	var msg pgproto3.BackendMessage
	switch t {
	case '1':
		msg = &m.parseComplete
	case '2':
		msg = &m.bindComplete
	case '3':
		msg = &m.closeComplete
	case 'A':
		msg = &m.notificationResponse
	case 'c':
		msg = &m.copyDone
	case 'C':
		msg = &m.commandComplete
	case 'd':
		msg = &m.copyData
	case 'D':
		msg = &m.dataRow
	case 'E':
		msg = &m.errorResponse
	case 'G':
		msg = &m.copyInResponse
	case 'H':
		msg = &m.copyOutResponse
	case 'I':
		msg = &m.emptyQueryResponse
	case 'K':
		msg = &m.backendKeyData
	case 'n':
		msg = &m.noData
	case 'N':
		msg = &m.noticeResponse
	case 's':
		msg = &m.portalSuspended
	case 'S':
		msg = &m.parameterStatus
	case 't':
		msg = &m.parameterDescription
	case 'T':
		msg = &m.rowDescription
	case 'V':
		msg = &m.functionCallResponse
	case 'W':
		msg = &m.copyBothResponse
	case 'Z':
		msg = &m.readyForQuery
	case 'v':
		msg = &m.negotiateProtocol
	default:
		// 'R' (authentication) is the start-up's, never a query's.
		return nil, fmt.Errorf("unknown message type: %c", t)
	}
	if err := msg.Decode(body); err != nil {
		return nil, err
	}
	return msg, nil
}

// errCutShort: the server's asynchronous message was not all read when
// pgx had to take the connection back.
var errCutShort = errors.New("an asynchronous message from the server was cut short")
