package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// ErrAdapter is wrapped by the error of a session whose adapter exited or
// wrote a line that is not a reply: the session is lost (it also wraps
// drivers.ErrConnLost), the run goes on with the others.
var ErrAdapter = errors.New("adapter failed")

// session is one adapter process speaking for one engine session. A
// call cut by its context kills the process and starts a fresh one,
// prepared as the old one was.
type session struct {
	b     *backend
	role  string
	p     *proc
	hello *protocol.Reply
	stmts []*stmt // prepared, replayed on a fresh adapter
	next  int     // the next statement name's number
	lost  error   // set once the adapter failed: every later call returns it
	// starting: the adapter is being started (hello, open, prepares)
	starting bool
	buf      []byte
}

// openSession starts an adapter, says hello and opens the store in role.
func (b *backend) openSession(ctx context.Context, role string) (*session, error) {
	s := &session{b: b, role: role}
	if err := s.startAdapter(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) startAdapter(ctx context.Context) error {
	p, err := start(s.b.spec)
	if err != nil {
		return fmt.Errorf("adapter backend %q: %w", s.b.name, err)
	}
	s.p = p
	// An adapter that never answers its hello, open or prepares fails
	// the session: it is not cut and started again.
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	s.starting = true
	defer func() { s.starting = false }()
	hello, err := s.request(ctx, protocol.Request{Op: "hello", Protocol: protocol.Version})
	if err != nil {
		p.kill()
		return err
	}
	if err := protocol.CheckVersion(hello.Protocol); err != nil {
		p.kill()
		return fmt.Errorf("adapter backend %q (%s): %w", s.b.name, s.b.spec, err)
	}
	switch hello.Placeholder {
	case "", "?", "$1":
	default:
		p.kill()
		return fmt.Errorf("adapter backend %q (%s): placeholder %q: the adapter's hello says \"?\" or \"$1\"", s.b.name, s.b.spec, hello.Placeholder)
	}
	s.hello = hello
	rep, err := s.request(ctx, protocol.Request{Op: "open", Path: s.b.path, Role: s.role, Settings: s.b.settings, Options: s.b.options})
	if err != nil {
		p.kill()
		return err
	}
	s.b.sawHello(hello, rep.Created)
	for _, st := range s.stmts {
		if _, err := s.request(ctx, protocol.Request{Op: "prepare", Name: st.name, SQL: st.sql}); err != nil {
			p.kill()
			return err
		}
	}
	return nil
}

// request sends one request and returns its reply: an adapter error as
// *protocol.Error, a broken adapter as a lost session.
func (s *session) request(ctx context.Context, req protocol.Request) (*protocol.Reply, error) {
	if s.lost != nil {
		return nil, s.lost
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("adapter backend %q: encoding %s: %w", s.b.name, req.Op, err)
	}
	return s.send(ctx, req.Op, append(b, '\n'))
}

// send writes one encoded request line and reads its reply.
func (s *session) send(ctx context.Context, op string, line []byte) (*protocol.Reply, error) {
	rep, got, cut, err := s.p.roundTrip(ctx, line)
	if cut && s.starting {
		return nil, s.fail(fmt.Sprintf("%s: no reply before the adapter's start was cut (%v)", op, context.Cause(ctx)), got)
	}
	if cut {
		return nil, s.recover(ctx, op, rep)
	}
	if err != nil {
		what := fmt.Sprintf("%s: %v", op, err)
		if got == nil && rep == nil {
			what = fmt.Sprintf("%s: no reply (%v)", op, err)
		}
		return nil, s.fail(what, got)
	}
	if rep.Error != nil {
		return rep, rep.Error
	}
	return rep, nil
}

// recover follows a call its context cut: an adapter that answered the
// interrupt keeps its session; any other is killed and replaced by a
// fresh one, prepared as before, so the next call is served.
func (s *session) recover(ctx context.Context, op string, rep *protocol.Reply) error {
	cause := context.Cause(ctx)
	if cause == nil {
		cause = context.Canceled
	}
	s.b.timeouts.Add(1)
	if rep != nil && s.hello.Capabilities.Cancel {
		return fmt.Errorf("adapter backend %q: %s interrupted: %w", s.b.name, op, cause)
	}
	s.p.kill()
	<-s.p.exited
	// A fresh adapter has no transaction and no half-read reply. Its
	// start is not the cut call's: it gets its own time.
	fresh, cancel := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	defer cancel()
	if err := s.startAdapter(fresh); err != nil {
		s.lost = fmt.Errorf("%w: %w: adapter backend %q: restarting after a cut %s: %w", drivers.ErrConnLost, ErrAdapter, s.b.name, op, err)
		return s.lost
	}
	s.b.restarts.Add(1)
	return fmt.Errorf("adapter backend %q: %s cut (adapter killed, a fresh one started): %w", s.b.name, op, cause)
}

// startTimeout bounds an adapter's start, hello, open and prepares.
var startTimeout = 60 * time.Second

// fail marks the session lost with what went wrong, the line the
// adapter wrote and its last stderr lines.
func (s *session) fail(what string, line []byte) error {
	s.p.kill()
	s.lost = fmt.Errorf("%w: %w: adapter backend %q (%s): %s", drivers.ErrConnLost, ErrAdapter, s.b.name, s.b.spec, s.p.failure(what, line))
	return s.lost
}

func (s *session) Exec(ctx context.Context, sql string) error {
	op, req := "exec", protocol.Request{Op: "exec", SQL: sql}
	switch strings.ToUpper(strings.TrimRight(strings.TrimSpace(sql), ";")) {
	case "BEGIN", "BEGIN TRANSACTION", "BEGIN IMMEDIATE":
		op = "begin"
	case "COMMIT", "END", "COMMIT TRANSACTION":
		op = "commit"
	case "ROLLBACK":
		op = "rollback"
	}
	if op != "exec" {
		if !s.hello.Capabilities.Transactions {
			return fmt.Errorf("adapter backend %q: %s: the adapter %s says it has no transactions (capabilities.transactions is false), and a write runs in one", s.b.name, op, s.hello.Name)
		}
		req = protocol.Request{Op: op}
	}
	_, err := s.request(ctx, req)
	if op == "exec" {
		return s.wrap("exec "+snippet(sql), err)
	}
	return s.wrap(op, err)
}

// wrap names the backend and the op in an error the adapter returned.
func (s *session) wrap(op string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("adapter backend %q: %s: %w", s.b.name, op, err)
	}
	return err
}

// snippet is the start of a statement, on one line, for errors.
func snippet(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

func (s *session) Prepare(ctx context.Context, sql string) (drivers.Stmt, error) {
	s.next++
	st := &stmt{s: s, name: fmt.Sprintf("s%d", s.next), sql: sql}
	if _, err := s.request(ctx, protocol.Request{Op: "prepare", Name: st.name, SQL: sql}); err != nil {
		return nil, s.wrap("prepare "+snippet(sql), err)
	}
	st.stats = s.b.stats.of(sql)
	s.stmts = append(s.stmts, st)
	return st, nil
}

func (s *session) Close() error {
	if s.p != nil {
		s.p.close()
	}
	return nil
}

// stmt is a statement the adapter prepared under name.
type stmt struct {
	s     *session
	name  string
	sql   string
	cols  []string
	stats *stmtStats
}

// Columns implements drivers.ColumnNamer.
func (st *stmt) Columns() []string { return st.cols }

func (st *stmt) Query(ctx context.Context, args []any, dst *[][]any) (int64, error) {
	s := st.s
	if s.lost != nil {
		return 0, s.lost
	}
	line, err := st.encodeCall(args, dst != nil)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	rep, err := s.send(ctx, "call", line)
	rt := time.Since(t0)
	if err != nil {
		return 0, s.wrap("call "+snippet(st.sql), err)
	}
	st.stats.add(rt, rep.StoreUS)
	if dst == nil {
		return rep.N, nil
	}
	rows, err := rep.Rows()
	if err != nil {
		return 0, s.fail("call: "+err.Error(), nil)
	}
	st.cols = rep.Columns
	*dst = append(*dst, rows...)
	return int64(len(rows)), nil
}

// encodeCall writes the call request by hand: it is the measured path.
func (st *stmt) encodeCall(args []any, rows bool) ([]byte, error) {
	b := append(st.s.buf[:0], `{"op":"call","name":"`...)
	b = append(b, st.name...)
	b = append(b, `","params":[`...)
	var small [8]string
	types := small[:0]
	for i, a := range args {
		if i > 0 {
			b = append(b, ',')
		}
		var t string
		var ok bool
		if b, t, ok = protocol.AppendValue(b, a); !ok {
			v, pt, err := protocol.Param(a)
			if err != nil {
				return nil, fmt.Errorf("adapter backend %q: parameter %d: %w", st.s.b.name, i+1, err)
			}
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("adapter backend %q: parameter %d: %w", st.s.b.name, i+1, err)
			}
			b, t = append(b, enc...), pt
		}
		types = append(types, t)
	}
	b = append(b, `],"types":[`...)
	for i, t := range types {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, t...)
		b = append(b, '"')
	}
	b = append(b, ']')
	if rows {
		b = append(b, `,"rows":true`...)
	}
	b = append(b, "}\n"...)
	st.s.buf = b
	return b, nil
}

func (st *stmt) Close() error {
	s := st.s
	for i, x := range s.stmts {
		if x == st {
			s.stmts = append(s.stmts[:i], s.stmts[i+1:]...)
			break
		}
	}
	if s.lost == nil && s.p != nil {
		s.request(context.Background(), protocol.Request{Op: "close_stmt", Name: st.name})
	}
	return nil
}
