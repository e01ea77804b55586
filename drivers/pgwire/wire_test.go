package pgwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// chunked reads its data in pieces of the sizes it cycles through, as a
// socket hands over what has arrived.
type chunked struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), c.sizes[c.i%len(c.sizes)])
	c.i++
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// backendStream encodes msgs as a server sends them.
func backendStream(t *testing.T, msgs []pgproto3.BackendMessage) []byte {
	t.Helper()
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestWireInAsFrontend: the counted path's reader returns the messages
// pgx's Frontend.Receive returns, decoded alike, however the stream is
// cut into reads, and fails where it fails.
func TestWireInAsFrontend(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3*wireBufSize)
	msgs := []pgproto3.BackendMessage{
		&pgproto3.ParseComplete{},
		&pgproto3.BindComplete{},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("e"), DataTypeOID: 20, DataTypeSize: 8, Format: 1},
			{Name: []byte("name"), DataTypeOID: 25, DataTypeSize: -1}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("12345678"), []byte("User 7")}},
		&pgproto3.DataRow{Values: [][]byte{nil, big}},
		&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "a notice"},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1"), {}}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 3")},
		&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"},
		&pgproto3.NotificationResponse{PID: 7, Channel: "ch", Payload: "p"},
		&pgproto3.ErrorResponse{Severity: "ERROR", Code: "22012", Message: "division by zero"},
		&pgproto3.EmptyQueryResponse{},
		&pgproto3.NoData{},
		&pgproto3.CopyInResponse{OverallFormat: 0, ColumnFormatCodes: []uint16{0, 1}},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	}
	stream := backendStream(t, msgs)
	for _, sizes := range [][]int{{1 << 20}, {1}, {5}, {3, 7, 2}, {wireBufSize - 1, 13}, {100, 4096}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			var in wireIn
			r := &chunked{data: stream, sizes: sizes}
			fe := pgproto3.NewFrontend(&chunked{data: stream, sizes: sizes}, io.Discard)
			for i := range msgs {
				want, err := fe.Receive()
				if err != nil {
					t.Fatal(err)
				}
				typ, body, err := in.next(r)
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				got, err := in.m.decode(typ, body)
				if err != nil {
					t.Fatalf("message %d (%c): %v", i, typ, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("message %d:\n got %#v\nwant %#v", i, got, want)
				}
			}
			if _, _, err := in.next(r); err != io.ErrUnexpectedEOF {
				t.Errorf("after the stream: %v; want io.ErrUnexpectedEOF", err)
			}
			in.settle()
			if len(in.buf) > 8*wireBufSize {
				t.Errorf("buffer of %d bytes kept after the call", len(in.buf))
			}
		})
	}

	// Broken streams: what Frontend.Receive refuses is refused.
	for _, tc := range []struct {
		name   string
		stream []byte
	}{
		{"length below 4", []byte{'Z', 0, 0, 0, 3, 'I'}},
		{"cut short", stream[:len(stream)-1]},
		{"unknown type", []byte{'!', 0, 0, 0, 4}},
		{"bad body", []byte{'Z', 0, 0, 0, 6, 'I', 'I'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := pgproto3.NewFrontend(bytes.NewReader(tc.stream), io.Discard)
			want := 0
			for ; ; want++ {
				if _, err := fe.Receive(); err != nil {
					break
				}
			}
			var in wireIn
			r := bytes.NewReader(tc.stream)
			got := 0
			for ; ; got++ {
				typ, body, err := in.next(r)
				if err == nil {
					_, err = in.m.decode(typ, body)
				}
				if err != nil {
					if tc.name == "cut short" && err != io.ErrUnexpectedEOF {
						t.Errorf("%v; want io.ErrUnexpectedEOF", err)
					}
					break
				}
			}
			if got != want {
				t.Errorf("failed after %d messages; Frontend.Receive after %d", got, want)
			}
		})
	}

	// The one deliberate difference: an authentication message, which
	// only the start-up has, ends a query's stream as a protocol error.
	var in wireIn
	typ, body, err := in.next(bytes.NewReader([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 0}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.m.decode(typ, body); err == nil {
		t.Error("an authentication message in a query's answer was accepted")
	}
}

// leave puts msgs in c's buffer as if they had arrived right after a
// counted call's ReadyForQuery.
func leave(c *Counter, b []byte) {
	in := &c.in
	in.fit(len(b))
	in.w += copy(in.buf[in.w:], b)
}

// TestHandOver: messages the server sent after a counted call's
// ReadyForQuery are handled before pgx reads the connection again, as
// pgx would have handled them, or read by the next counted call.
func TestHandOver(t *testing.T) {
	testDSN(t)
	for _, d := range testDials {
		t.Run(d.name, func(t *testing.T) {
			s := newTestSession(t, d)
			s.c.CancelDelay = 300 * time.Millisecond
			ctx := testCtx(t)
			one := s.prepare("SELECT 1 WHERE $1::int > 0")
			query := func(what string) {
				t.Helper()
				if n, err := s.count(ctx, one, int64(1)); err != nil || n != 1 {
					t.Fatalf("%s: counted query: %d rows, %v", what, n, err)
				}
			}
			query("first")
			async := backendStream(t, []pgproto3.BackendMessage{
				&pgproto3.NotificationResponse{PID: 1, Channel: "ch", Payload: "x"},
				&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "n"},
			})

			// Read by the next counted call, ahead of its answer.
			leave(&s.c, async)
			query("after a notification")

			// Dropped before pgx's Exec, which then runs as usual.
			leave(&s.c, async)
			if err := s.pgxExec(ctx, "SELECT 1"); err != nil {
				t.Fatalf("Exec after a notification: %v", err)
			}
			if s.c.in.r != s.c.in.w {
				t.Fatal("leftover bytes after Exec")
			}
			query("after Exec")

			// A parameter change the simple text depends on is noted.
			leave(&s.c, backendStream(t, []pgproto3.BackendMessage{&pgproto3.ParameterStatus{Name: "client_encoding", Value: "UTF8"}}))
			if err := s.pgxExec(ctx, "SELECT 1"); err != nil {
				t.Fatalf("Exec after a ParameterStatus: %v", err)
			}
			if !s.c.textOff {
				t.Error("a ParameterStatus of client_encoding was not noted")
			}
			s.c.textOff = false
			query("after a ParameterStatus")

			// The server ending the session: the hand-over fails as lost.
			leave(&s.c, backendStream(t, []pgproto3.BackendMessage{&pgproto3.ErrorResponse{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}}))
			var lost *LostError
			if err := s.pgxExec(ctx, "SELECT 1"); !errors.As(err, &lost) || !lost.Idle || !strings.Contains(err.Error(), "57P01") {
				t.Errorf("Exec after a FATAL error: %v; want an idle LostError with the server's error", err)
			}
			s.reconnect()
			one = s.prepare("SELECT 1 WHERE $1::int > 0")
			query("after a FATAL error")

			// A message whose rest never comes: lost once the wait ends.
			leave(&s.c, []byte{'A', 0, 0, 0, 40, 0, 0})
			start := time.Now()
			if err := s.pgxExec(ctx, "SELECT 1"); !errors.As(err, &lost) || !errors.Is(err, errCutShort) {
				t.Errorf("Exec after a cut message: %v; want a LostError, cut short", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the cut message held Exec for %v", d)
			}
		})
	}
}

// loopReader serves the same stream again and again, one answer per Read
// as a socket does after each query.
type loopReader struct{ data []byte }

func (r *loopReader) Read(p []byte) (int, error) { return copy(p, r.data), nil }

// BenchmarkReceive: reading q1's answer (BindComplete, a DataRow,
// CommandComplete, ReadyForQuery) from the socket's bytes, with pgx's
// Frontend.Receive and with the counted path's reader, the read itself
// excluded (an in-memory reader).
func BenchmarkReceive(b *testing.B) {
	var answer []byte
	for _, m := range []pgproto3.BackendMessage{&pgproto3.BindComplete{},
		&pgproto3.DataRow{Values: [][]byte{[]byte("\x00\x00\x00\x00\x00\x01\xe2\x40"), []byte("User 1234")}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}} {
		answer, _ = m.Encode(answer)
	}
	b.Run("frontend", func(b *testing.B) {
		fe := pgproto3.NewFrontend(&loopReader{answer}, io.Discard)
		for b.Loop() {
			for {
				msg, err := fe.Receive()
				if err != nil {
					b.Fatal(err)
				}
				if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
					break
				}
			}
		}
	})
	b.Run("wire", func(b *testing.B) {
		var in wireIn
		r := &loopReader{answer}
		for b.Loop() {
			for {
				t, body, err := in.next(r)
				if err != nil {
					b.Fatal(err)
				}
				if t == 'D' {
					if err := in.m.dataRow.Decode(body); err != nil {
						b.Fatal(err)
					}
					continue
				}
				if _, err := in.m.decode(t, body); err != nil {
					b.Fatal(err)
				}
				if t == 'Z' {
					break
				}
			}
			in.settle()
		}
	})
}
