package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// ConformanceOptions is what `mentat-spec adapter test` runs.
type ConformanceOptions struct {
	Argv []string
	Env  []string // NAME=value added to the environment
	Dir  string
	// Path is the store the test opens; empty: a new file in a temporary
	// directory, removed afterwards.
	Path string
	// NoSQL checks the protocol only (hello, open, errors, close): for an
	// adapter whose store does not take the portable SQL the statement
	// checks use.
	NoSQL bool
	// Timeout bounds each request.
	Timeout time.Duration
}

// Conformance runs an adapter through the protocol and writes one line
// per check to w: PASS, FAIL with what was expected and what came back,
// or SKIP with why. It returns the number of failures; an error says the
// test itself could not run.
func Conformance(ctx context.Context, o ConformanceOptions, w io.Writer) (int, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Path == "" {
		dir, err := os.MkdirTemp("", "mentat-adapter-test-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		o.Path = filepath.Join(dir, "store")
	}
	c := &conformance{o: o, w: w, ctx: ctx}
	p, err := start(spec{argv: o.Argv, env: o.Env, dir: o.Dir})
	if err != nil {
		return 0, err
	}
	c.p = p
	defer func() {
		if c.p != nil {
			c.p.kill()
		}
	}()
	c.run()
	return c.failed, nil
}

type conformance struct {
	o      ConformanceOptions
	w      io.Writer
	ctx    context.Context
	p      *proc
	failed int
	broken bool // the adapter stopped answering: later checks are skipped
	hello  *protocol.Reply
}

func (c *conformance) pass(name, detail string) { fmt.Fprintf(c.w, "PASS %-22s %s\n", name, detail) }
func (c *conformance) skip(name, why string)    { fmt.Fprintf(c.w, "SKIP %-22s %s\n", name, why) }
func (c *conformance) fail(name, format string, a ...any) {
	c.failed++
	fmt.Fprintf(c.w, "FAIL %-22s %s\n", name, fmt.Sprintf(format, a...))
}

// send sends one request; a reply with ok false comes back as it is. A
// broken adapter (no reply, a line that is not one) fails the check and
// every later one is skipped.
func (c *conformance) send(name string, req protocol.Request) (*protocol.Reply, bool) {
	if c.broken {
		c.skip(name, "the adapter stopped answering")
		return nil, false
	}
	b, _ := json.Marshal(req)
	timeout := c.o.Timeout
	if req.Op == "hello" {
		// The adapter's start is in it (an interpreter, a store's library).
		timeout = max(timeout, 30*time.Second)
	}
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	rep, line, cut, err := c.p.roundTrip(ctx, append(b, '\n'))
	switch {
	case cut:
		c.broken = true
		c.fail(name, "%s", c.p.failure(fmt.Sprintf("%s: no reply within %v (the engine cuts a call past probe_s the same way)", req.Op, timeout), nil))
		return nil, false
	case err != nil:
		c.broken = true
		c.fail(name, "%s: %s", req.Op, c.p.failure(err.Error(), line))
		return nil, false
	}
	return rep, true
}

// ok sends req and fails the check unless the reply is ok.
func (c *conformance) ok(name string, req protocol.Request) (*protocol.Reply, bool) {
	rep, ok := c.send(name, req)
	if !ok {
		return nil, false
	}
	if rep.Error != nil {
		c.fail(name, "%s %s: the adapter answered with an error: %v", req.Op, snippet(req.SQL), rep.Error)
		return nil, false
	}
	return rep, true
}

// call prepares sql under name and calls it with params, rows back.
func (c *conformance) call(check, name, sql string, params []any, rows bool) (*protocol.Reply, bool) {
	if _, ok := c.ok(check, protocol.Request{Op: "prepare", Name: name, SQL: sql}); !ok {
		return nil, false
	}
	req := protocol.Request{Op: "call", Name: name, Rows: rows, Params: []any{}, Types: []string{}}
	for _, a := range params {
		v, t, _ := protocol.Param(a)
		req.Params, req.Types = append(req.Params, v), append(req.Types, t)
	}
	return c.ok(check, req)
}

func (c *conformance) run() {
	c.checkHello()
	if c.hello == nil {
		return
	}
	if rep, ok := c.ok("open", protocol.Request{Op: "open", Path: c.o.Path, Role: protocol.RoleClient}); ok {
		if !rep.Created {
			c.fail("open", "a store opened at a new path %s: created is false, want true (the engine sets up and loads only a store it created)", c.o.Path)
		} else {
			c.pass("open", "created "+c.o.Path)
		}
	} else {
		return
	}
	if rep, ok := c.send("unknown op", protocol.Request{Op: "no_such_op"}); ok {
		if rep.Error == nil {
			c.fail("unknown op", `an op the adapter does not know answered ok; want {"ok": false, "error": {"class": "unsupported", ...}}`)
		} else {
			c.pass("unknown op", "error "+rep.Error.Error())
		}
	}
	if c.o.NoSQL {
		c.skip("statements", "-no-sql: the checks that run portable SQL are skipped")
	} else {
		c.checkStatements()
	}
	c.checkClose()
}

func (c *conformance) checkHello() {
	rep, ok := c.send("hello", protocol.Request{Op: "hello", Protocol: protocol.Version})
	if !ok {
		return
	}
	if rep.Error != nil {
		c.fail("hello", "the adapter answered hello with an error: %v", rep.Error)
		return
	}
	var probs []string
	if err := protocol.CheckVersion(rep.Protocol); err != nil {
		probs = append(probs, err.Error())
	}
	if rep.Name == "" {
		probs = append(probs, "no name")
	}
	if rep.Version == "" {
		probs = append(probs, "no version")
	}
	if p := rep.Placeholder; p != "" && p != "?" && p != "$1" {
		probs = append(probs, fmt.Sprintf("placeholder %q (want \"?\" or \"$1\")", p))
	}
	if rep.Capabilities.Writers < 0 {
		probs = append(probs, "writers < 0")
	}
	if len(probs) > 0 {
		c.fail("hello", "%s", strings.Join(probs, "; "))
		if protocol.CheckVersion(rep.Protocol) != nil {
			return
		}
	} else {
		c.pass("hello", fmt.Sprintf("%s %s, protocol %s: %s", rep.Name, rep.Version, rep.Protocol, Capabilities(rep.Capabilities)))
	}
	c.hello = rep
}

func (c *conformance) ph(i int) string {
	if c.hello.Placeholder == "$1" {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

func (c *conformance) checkStatements() {
	if _, ok := c.ok("exec", protocol.Request{Op: "exec", SQL: "CREATE TABLE conformance_t (id BIGINT NOT NULL, name TEXT, score DOUBLE PRECISION)"}); ok {
		c.pass("exec", "CREATE TABLE")
	}
	// Typed values both ways: an int stays an int, a real a real.
	params := []any{int64(1) << 40, 2.5, "text é", nil, true}
	sql := fmt.Sprintf("SELECT %s, %s, %s, %s, %s", c.ph(1), c.ph(2), c.ph(3), c.ph(4), c.ph(5))
	if rep, ok := c.call("typed values", "conf_typed", sql, params, true); ok {
		rows, err := rep.Rows()
		switch {
		case err != nil:
			c.fail("typed values", "rows: %v", err)
		case len(rows) != 1 || len(rows[0]) != 5:
			c.fail("typed values", "want one row of 5 values, got %v", rows)
		default:
			want := []any{int64(1) << 40, 2.5, "text é", nil}
			got := rows[0][:4]
			if !reflect.DeepEqual(got, want) {
				c.fail("typed values", "sent %v, got %#v (an integer is a JSON number without a fraction, a real one with one)", want, got)
			} else if b := rows[0][4]; b != true && b != int64(1) {
				c.fail("typed values", "sent true, got %#v (want true or 1)", b)
			} else {
				c.pass("typed values", "int, real, text, null and bool came back as sent")
			}
			if len(rep.Columns) != 5 {
				c.fail("columns", "a call with rows names its 5 columns, got %v", rep.Columns)
			} else {
				c.pass("columns", strings.Join(rep.Columns, ", "))
			}
		}
	}
	if rep, ok := c.call("count only", "conf_count", "SELECT 1 UNION ALL SELECT 2", nil, false); ok {
		switch {
		case rep.N != 2:
			c.fail("count only", "a call without rows answers n = 2 for two rows, got n = %d", rep.N)
		case len(rep.RawRows) > 0 && string(rep.RawRows) != "null" && string(rep.RawRows) != "[]":
			c.fail("count only", "a call without rows sends no rows (the measured path), got %s", snippet(string(rep.RawRows)))
		default:
			c.pass("count only", "n = 2, no rows sent")
		}
		if c.hello.Capabilities.StoreTime {
			if rep.StoreUS == nil {
				c.fail("store time", "hello says store_time but the call reply has no store_us")
			} else {
				c.pass("store time", fmt.Sprintf("store_us = %.1f", *rep.StoreUS))
			}
		} else {
			c.skip("store time", "hello says store_time is false")
		}
	}
	if rep, ok := c.send("error", protocol.Request{Op: "exec", SQL: "SELECT no_such_column FROM no_such_table_conformance"}); ok {
		switch {
		case rep.Error == nil:
			c.fail("error", "a statement on a missing table answered ok")
		case rep.Error.Message == "":
			c.fail("error", "an error without a message")
		default:
			c.pass("error", rep.Error.Error())
		}
		if r, ok := c.call("usable after error", "conf_after", "SELECT 1", nil, true); ok {
			if rows, _ := r.Rows(); len(rows) != 1 || !reflect.DeepEqual(rows[0], []any{int64(1)}) {
				c.fail("usable after error", "SELECT 1 after an error: got %v", rows)
			} else {
				c.pass("usable after error", "SELECT 1 = 1")
			}
		}
	}
	if rep, ok := c.send("unknown statement", protocol.Request{Op: "call", Name: "never_prepared", Params: []any{}, Types: []string{}}); ok {
		if rep.Error == nil {
			c.fail("unknown statement", "a call of a name never prepared answered ok")
		} else {
			c.pass("unknown statement", rep.Error.Error())
		}
	}
	c.checkTransactions()
	c.checkLoad()
}

func (c *conformance) count(check string) (int64, bool) {
	rep, ok := c.call(check, "conf_n", "SELECT count(*) FROM conformance_t", nil, true)
	if !ok {
		return 0, false
	}
	rows, err := rep.Rows()
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		c.fail(check, "SELECT count(*): got %v %v", rows, err)
		return 0, false
	}
	n, ok := rows[0][0].(int64)
	if !ok {
		c.fail(check, "SELECT count(*) is %#v, want an integer", rows[0][0])
	}
	return n, ok
}

func (c *conformance) checkTransactions() {
	if !c.hello.Capabilities.Transactions {
		c.skip("transactions", "hello says transactions is false")
		return
	}
	ins := fmt.Sprintf("INSERT INTO conformance_t (id, name, score) VALUES (%s, %s, %s)", c.ph(1), c.ph(2), c.ph(3))
	steps := []protocol.Request{{Op: "begin"}}
	for _, r := range steps {
		if _, ok := c.ok("transactions", r); !ok {
			return
		}
	}
	if _, ok := c.call("transactions", "conf_ins", ins, []any{int64(1), "a", 1.0}, false); !ok {
		return
	}
	if _, ok := c.ok("transactions", protocol.Request{Op: "rollback"}); !ok {
		return
	}
	n, ok := c.count("transactions")
	if !ok {
		return
	}
	if n != 0 {
		c.fail("transactions", "a rolled back insert left %d rows", n)
		return
	}
	if _, ok := c.ok("transactions", protocol.Request{Op: "begin"}); !ok {
		return
	}
	if _, ok := c.call("transactions", "conf_ins", ins, []any{int64(2), "b", 2.0}, false); !ok {
		return
	}
	if _, ok := c.ok("transactions", protocol.Request{Op: "commit"}); !ok {
		return
	}
	if n, ok = c.count("transactions"); ok && n != 1 {
		c.fail("transactions", "a committed insert: %d rows, want 1", n)
		return
	}
	c.pass("transactions", "rollback leaves nothing, commit keeps the row")
}

func (c *conformance) checkLoad() {
	if !c.hello.Capabilities.Load {
		c.skip("load", "hello says load is false")
		return
	}
	before, ok := c.count("load")
	if !ok {
		return
	}
	data := [][]any{{int64(10), "x", 0.5}, {int64(11), nil, 1.5}, {int64(12), "z", nil}}
	if _, ok := c.ok("load", protocol.Request{Op: "load", Table: "conformance_t", Columns: []string{"id", "name", "score"}, Data: data}); !ok {
		return
	}
	if _, ok := c.ok("load", protocol.Request{Op: "flush"}); !ok {
		return
	}
	if n, ok := c.count("load"); ok {
		if n != before+3 {
			c.fail("load", "3 rows loaded and flushed: count went from %d to %d", before, n)
		} else {
			c.pass("load", "3 rows loaded and flushed")
		}
	}
}

func (c *conformance) checkClose() {
	if c.broken {
		c.skip("close", "the adapter stopped answering")
		return
	}
	p := c.p
	c.p = nil
	p.in.WriteString(`{"op":"close"}` + "\n")
	p.in.Flush()
	p.inPipe.Close()
	select {
	case <-p.exited:
		var ee interface{ ExitCode() int }
		if p.err != nil && errors.As(p.err, &ee) {
			c.fail("close", "%s", p.failure(fmt.Sprintf("the adapter exited with status %d after close", ee.ExitCode()), nil))
		} else if p.err != nil {
			c.fail("close", "%v", p.err)
		} else {
			c.pass("close", "exited with status 0")
		}
	case <-time.After(5 * time.Second):
		p.kill()
		c.fail("close", "the adapter did not exit within 5s of close and the end of its input")
	}
}
