// Package protocol is the adapter protocol's messages and their line
// encoding (docs/adapter-protocol.md): the engine writes one JSON request
// a line to an adapter's standard input and reads one JSON reply a line
// from its standard output. Nothing an adapter writes can panic the
// reader: a line that is not a reply is an error naming the line.
package protocol

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Version is the protocol's version, major.minor. An adapter of another
// major version is refused; a newer minor only adds optional fields or
// values (1.1: the roles writer and checker, sent as client by 1.0).
const Version = "1.1"

// Major is Version's major number.
const Major = 1

// Roles of a session, sent with open.
const (
	RoleAdmin   = "admin"   // the backend's opening: creates the store, marks it the engine's
	RoleReader  = "reader"  // a client that only reads
	RoleClient  = "client"  // a client that may write, the engine's own session (setup, after-load)
	RoleWriter  = "writer"  // a writing session: write_mixed's writer, a stream's shared writers
	RoleLoader  = "loader"  // one bulk-load job
	RoleChecker = "checker" // the session a scenario's checks run on
)

// Request is one message from the engine. Op names it; the other fields
// belong to the ops that use them.
type Request struct {
	Op       string            `json:"op"`
	Protocol string            `json:"protocol,omitempty"` // hello
	Path     string            `json:"path,omitempty"`     // open
	Role     string            `json:"role,omitempty"`     // open
	Settings map[string]string `json:"settings,omitempty"` // open
	Options  map[string]string `json:"options,omitempty"`  // open: the backend's other options
	SQL      string            `json:"sql,omitempty"`      // exec, prepare
	Name     string            `json:"name,omitempty"`     // prepare, call, close_stmt
	Params   []any             `json:"params,omitempty"`   // call
	Types    []string          `json:"types,omitempty"`    // call: one per parameter
	Rows     bool              `json:"rows,omitempty"`     // call: send the rows back, not only their count
	Table    string            `json:"table,omitempty"`    // load
	Columns  []string          `json:"columns,omitempty"`  // load
	Data     [][]any           `json:"data,omitempty"`     // load: rows of values in column order
}

// Capabilities is what an adapter says its store can do at hello.
type Capabilities struct {
	Transactions bool `json:"transactions"` // begin/commit/rollback
	Writers      int  `json:"writers"`      // sessions that may write at once; 0: any number
	Cancel       bool `json:"cancel"`       // an interrupt (SIGINT) ends the running call and the session stays usable
	StoreTime    bool `json:"store_time"`   // call replies carry store_us
	Load         bool `json:"load"`         // the load op
}

// Error is a failed request.
type Error struct {
	// Class is one of the Class* values (an unknown class reads as other).
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Error classes.
const (
	ClassSyntax      = "syntax"      // the statement is not understood
	ClassConstraint  = "constraint"  // a constraint refused a write
	ClassBusy        = "busy"        // locked or in conflict: retrying may succeed
	ClassInterrupted = "interrupted" // cut by an interrupt
	ClassUnsupported = "unsupported" // the adapter does not implement the op
	ClassOther       = "other"
)

func (e *Error) Error() string {
	c := e.Class
	if c == "" {
		c = ClassOther
	}
	return c + ": " + e.Message
}

// Reply is one message from the adapter.
type Reply struct {
	OK    bool   `json:"ok"`
	Error *Error `json:"error,omitempty"`

	// hello
	Protocol     string            `json:"protocol,omitempty"`
	Name         string            `json:"name,omitempty"`
	Version      string            `json:"version,omitempty"`
	Placeholder  string            `json:"placeholder,omitempty"` // "?" (default) or "$1"
	Capabilities Capabilities      `json:"capabilities"`
	Info         map[string]string `json:"info,omitempty"` // facts for env.txt

	// open
	Created bool `json:"created,omitempty"`

	// call
	N       int64           `json:"n,omitempty"`
	Columns []string        `json:"columns,omitempty"`
	RawRows json.RawMessage `json:"rows,omitempty"`
	StoreUS *float64        `json:"store_us,omitempty"`
}

// MaxLine bounds one reply line: a longer one is an error, not memory.
const MaxLine = 64 << 20

// ErrLineTooLong is returned for a line past MaxLine.
var ErrLineTooLong = errors.New("adapter line longer than 64 MiB")

// ReadLine reads one line (without its newline) from r. At end of input
// without a newline it returns what it read and io.EOF when that is
// nothing, else the partial line and io.ErrUnexpectedEOF.
func ReadLine(r *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(chunk) > MaxLine {
				return nil, ErrLineTooLong
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			if len(line) > MaxLine {
				return nil, ErrLineTooLong
			}
		}
		if err != nil {
			if len(line) == 0 && err == io.EOF {
				return nil, io.EOF
			}
			if err == io.EOF {
				return line, io.ErrUnexpectedEOF
			}
			return line, err
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
		return line, nil
	}
}

// ParseReply decodes one reply line. An error says what is wrong with it.
func ParseReply(line []byte) (*Reply, error) {
	if rep, ok := parseCountReply(line); ok {
		return rep, nil
	}
	return parseFull(line)
}

// parseFull is ParseReply for any reply, through encoding/json.
func parseFull(line []byte) (*Reply, error) {
	if !utf8.Valid(line) {
		return nil, errors.New("the line is not UTF-8")
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("a reply is one JSON object on one line")
	}
	var rep Reply
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not a reply: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if !rep.OK && rep.Error == nil {
		return nil, errors.New(`a reply has "ok": true or an "error"`)
	}
	if rep.OK && rep.Error != nil {
		return nil, errors.New(`a reply has "ok": true or an "error", not both`)
	}
	if rep.StoreUS != nil && (*rep.StoreUS < 0 || math.IsNaN(*rep.StoreUS) || math.IsInf(*rep.StoreUS, 0)) {
		return nil, fmt.Errorf("store_us %v is not a duration in microseconds", *rep.StoreUS)
	}
	if rep.N < 0 {
		return nil, fmt.Errorf("n = %d rows", rep.N)
	}
	return &rep, nil
}

// Rows decodes the reply's rows: each a JSON array of values. A number
// without a fraction or exponent is an int64, with one a float64; a
// string, bool or null is itself; {"bytes": base64} is []byte.
func (r *Reply) Rows() ([][]any, error) {
	if len(r.RawRows) == 0 || string(r.RawRows) == "null" {
		return nil, nil
	}
	var raw [][]json.RawMessage
	if err := json.Unmarshal(r.RawRows, &raw); err != nil {
		return nil, fmt.Errorf("rows: want an array of arrays: %v", err)
	}
	out := make([][]any, len(raw))
	for i, row := range raw {
		if len(r.Columns) > 0 && len(row) != len(r.Columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i+1, len(row), len(r.Columns))
		}
		out[i] = make([]any, len(row))
		for j, v := range row {
			x, err := decodeValue(v)
			if err != nil {
				return nil, fmt.Errorf("row %d, value %d: %w", i+1, j+1, err)
			}
			out[i][j] = x
		}
	}
	return out, nil
}

func decodeValue(v json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	switch t := x.(type) {
	case nil, bool, string:
		return t, nil
	case json.Number:
		return Number(string(t))
	case map[string]any:
		if s, ok := t["bytes"].(string); ok && len(t) == 1 {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("bytes: %v", err)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("%.40s is not a value (a number, string, bool, null or {\"bytes\": base64})", v)
}

// Number is a JSON number as the engine's value: int64 when it has no
// fraction or exponent and fits, else float64.
func Number(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %q: %v", s, err)
	}
	return f, nil
}

// Param is a parameter's JSON value and its type name: int, real, text,
// bool, bytes ({"bytes": base64}), time (RFC 3339 text) or null.
func Param(v any) (any, string, error) {
	switch x := v.(type) {
	case nil:
		return nil, "null", nil
	case int64:
		return x, "int", nil
	case int:
		return x, "int", nil
	case int32:
		return x, "int", nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, "", fmt.Errorf("parameter %v has no JSON form", x)
		}
		return x, "real", nil
	case string:
		return x, "text", nil
	case bool:
		return x, "bool", nil
	case []byte:
		return map[string]string{"bytes": base64.StdEncoding.EncodeToString(x)}, "bytes", nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), "time", nil
	}
	return nil, "", fmt.Errorf("parameter of type %T has no protocol type", v)
}

// CheckVersion refuses an adapter whose protocol major version is not
// Major, saying which both speak.
func CheckVersion(v string) error {
	if v == "" {
		return fmt.Errorf("the adapter's hello names no protocol version; this engine speaks %s", Version)
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return fmt.Errorf("the adapter's protocol version %q is not major.minor; this engine speaks %s", v, Version)
	}
	if n != Major {
		return fmt.Errorf("the adapter speaks protocol %s, this engine speaks %s: the major versions differ (update the adapter or the engine)", v, Version)
	}
	return nil
}
