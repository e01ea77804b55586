// Package edn reads EDN (extensible data notation), the text a mentat
// store answers in: nil, booleans, strings, characters, numbers,
// keywords, symbols, lists, vectors, maps, sets and tagged values
// (#inst as a time, #uuid as its text). It reads whatever bytes it is
// given without panicking: a malformed value is an error with its offset.
package edn

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Keyword is a keyword without its leading colon (":issue/state" is
// Keyword("issue/state")).
type Keyword string

// Symbol is a symbol (an identifier that is not a keyword).
type Symbol string

// List is a list, (a b c).
type List []any

// Set is a set, #{a b c}, in the order written.
type Set []any

// Map is a map, {k v ...}, its entries in the order written.
type Map []Entry

// Entry is one key and value of a Map.
type Entry struct {
	Key, Value any
}

// Tagged is a tagged value whose tag the reader does not interpret.
type Tagged struct {
	Tag   string
	Value any
}

// Vectors read as []any; integers as int64 (*big.Int past its range or
// with the N suffix); floats as float64; strings and characters as
// string; #inst as time.Time; #uuid as its string.

// maxDepth bounds nesting, so arbitrary input cannot exhaust the stack.
const maxDepth = 1000

// Decode reads exactly one value from data; anything but whitespace and
// comments after it is an error.
func Decode(data []byte) (any, error) {
	r := &reader{s: data}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.skip()
	if r.err != nil {
		return nil, r.err
	}
	if r.i < len(r.s) {
		return nil, r.errorf("unexpected %q after the value", r.s[r.i])
	}
	return v, nil
}

type reader struct {
	s   []byte
	i   int
	err error // from skip (a malformed #_ form)
}

// Error is a read error at a byte offset.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("edn: at byte %d: %s", e.Offset, e.Msg) }

func (r *reader) errorf(format string, args ...any) error {
	return &Error{Offset: r.i, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f'
}

func isDelim(c byte) bool {
	return isSpace(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' || c == ';'
}

// skip passes whitespace, commas, comments and #_ discarded forms.
func (r *reader) skip() {
	for r.i < len(r.s) && r.err == nil {
		c := r.s[r.i]
		switch {
		case isSpace(c):
			r.i++
		case c == ';':
			for r.i < len(r.s) && r.s[r.i] != '\n' {
				r.i++
			}
		case c == '#' && r.i+1 < len(r.s) && r.s[r.i+1] == '_':
			r.i += 2
			if _, err := r.value(1); err != nil {
				r.err = err
			}
		default:
			return
		}
	}
}

var errEnd = "unexpected end of input"

func (r *reader) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, r.errorf("nested deeper than %d", maxDepth)
	}
	r.skip()
	if r.err != nil {
		return nil, r.err
	}
	if r.i >= len(r.s) {
		return nil, r.errorf("%s", errEnd)
	}
	c := r.s[r.i]
	switch c {
	case '"':
		return r.str()
	case '\\':
		return r.char()
	case ':':
		start := r.i
		r.i++
		tok := r.token()
		if tok == "" || tok[0] == ':' || strings.HasSuffix(tok, "/") {
			r.i = start
			return nil, r.errorf("malformed keyword")
		}
		return Keyword(tok), nil
	case '[':
		r.i++
		items, err := r.seq(']', depth)
		if err != nil {
			return nil, err
		}
		return items, nil
	case '(':
		r.i++
		items, err := r.seq(')', depth)
		return List(items), err
	case '{':
		r.i++
		return r.mapBody(depth)
	case ')', ']', '}':
		return nil, r.errorf("unexpected %q", c)
	case '#':
		return r.dispatch(depth)
	}
	start := r.i
	tok := r.token()
	if tok == "" {
		return nil, r.errorf("unexpected %q", c)
	}
	switch tok {
	case "nil":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if c >= '0' && c <= '9' || (c == '+' || c == '-') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9' {
		v, err := number(tok)
		if err != nil {
			r.i = start
			return nil, r.errorf("%v", err)
		}
		return v, nil
	}
	return Symbol(tok), nil
}

// token reads up to the next delimiter.
func (r *reader) token() string {
	start := r.i
	for r.i < len(r.s) && !isDelim(r.s[r.i]) {
		r.i++
	}
	return string(r.s[start:r.i])
}

func (r *reader) seq(end byte, depth int) ([]any, error) {
	items := []any{}
	for {
		r.skip()
		if r.err != nil {
			return nil, r.err
		}
		if r.i >= len(r.s) {
			return nil, r.errorf("%s: missing %q", errEnd, end)
		}
		if r.s[r.i] == end {
			r.i++
			return items, nil
		}
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

func (r *reader) mapBody(depth int) (any, error) {
	items, err := r.seq('}', depth)
	if err != nil {
		return nil, err
	}
	if len(items)%2 != 0 {
		return nil, r.errorf("a map needs an even number of forms, has %d", len(items))
	}
	m := make(Map, 0, len(items)/2)
	for i := 0; i < len(items); i += 2 {
		m = append(m, Entry{Key: items[i], Value: items[i+1]})
	}
	return m, nil
}

func (r *reader) dispatch(depth int) (any, error) {
	start := r.i
	r.i++ // '#'
	if r.i >= len(r.s) {
		return nil, r.errorf("%s after #", errEnd)
	}
	switch r.s[r.i] {
	case '{':
		r.i++
		items, err := r.seq('}', depth)
		return Set(items), err
	case '#':
		r.i++
		switch tok := r.token(); tok {
		case "Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		default:
			r.i = start
			return nil, r.errorf("unknown symbolic value ##%s", tok)
		}
	}
	tag := r.token()
	if tag == "" || !(tag[0] >= 'a' && tag[0] <= 'z' || tag[0] >= 'A' && tag[0] <= 'Z') {
		r.i = start
		return nil, r.errorf("malformed tag")
	}
	v, err := r.value(depth + 1)
	if err != nil {
		return nil, err
	}
	switch tag {
	case "inst":
		s, ok := v.(string)
		if !ok {
			r.i = start
			return nil, r.errorf("#inst needs a string")
		}
		t, err := parseInst(s)
		if err != nil {
			r.i = start
			return nil, r.errorf("#inst %q: %v", s, err)
		}
		return t, nil
	case "uuid":
		s, ok := v.(string)
		if !ok {
			r.i = start
			return nil, r.errorf("#uuid needs a string")
		}
		return s, nil
	}
	return Tagged{Tag: tag, Value: v}, nil
}

// parseInst reads an RFC 3339 instant; EDN allows the date alone and
// fractions of any length.
func parseInst(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not an RFC 3339 instant")
}

func number(tok string) (any, error) {
	switch {
	case strings.HasSuffix(tok, "N"):
		b, ok := new(big.Int).SetString(strings.TrimPrefix(tok[:len(tok)-1], "+"), 10)
		if !ok {
			return nil, fmt.Errorf("malformed integer %q", tok)
		}
		return b, nil
	case strings.HasSuffix(tok, "M"):
		tok = tok[:len(tok)-1]
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("malformed decimal %q", tok+"M")
		}
		return f, nil
	case strings.ContainsAny(tok, ".eE"):
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil || strings.ContainsAny(tok, "_xXpP") {
			return nil, fmt.Errorf("malformed float %q", tok)
		}
		return f, nil
	}
	if strings.ContainsAny(tok, "_") {
		return nil, fmt.Errorf("malformed integer %q", tok)
	}
	i, err := strconv.ParseInt(tok, 10, 64)
	if err == nil {
		return i, nil
	}
	if b, ok := new(big.Int).SetString(strings.TrimPrefix(tok, "+"), 10); ok {
		return b, nil
	}
	return nil, fmt.Errorf("malformed number %q", tok)
}

func (r *reader) str() (any, error) {
	start := r.i
	r.i++ // opening quote
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch c {
		case '"':
			r.i++
			return b.String(), nil
		case '\\':
			r.i++
			if r.i >= len(r.s) {
				break
			}
			e := r.s[r.i]
			r.i++
			switch e {
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'n':
				b.WriteByte('\n')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '\\', '"', '\'':
				b.WriteByte(e)
			case 'u':
				ch, ok := r.hex4()
				if !ok {
					return nil, r.errorf("malformed \\u escape")
				}
				b.WriteRune(ch)
			default:
				r.i--
				return nil, r.errorf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			r.i++
		}
	}
	r.i = start
	return nil, r.errorf("%s: unterminated string", errEnd)
}

func (r *reader) hex4() (rune, bool) {
	if r.i+4 > len(r.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(r.s[r.i:r.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	r.i += 4
	return rune(n), true
}

var charNames = map[string]string{"newline": "\n", "return": "\r", "space": " ", "tab": "\t", "formfeed": "\f", "backspace": "\b"}

// char reads a character literal (\a, \newline, \u00e9) as a string.
func (r *reader) char() (any, error) {
	start := r.i
	r.i++ // backslash
	if r.i >= len(r.s) {
		return nil, r.errorf("%s after \\", errEnd)
	}
	_, size := utf8.DecodeRune(r.s[r.i:])
	first := string(r.s[r.i : r.i+size])
	r.i += size
	for r.i < len(r.s) && !isDelim(r.s[r.i]) {
		r.i++
	}
	tok := string(r.s[start+1 : r.i])
	if tok == first {
		return tok, nil
	}
	if s, ok := charNames[tok]; ok {
		return s, nil
	}
	if len(tok) == 5 && tok[0] == 'u' {
		if n, err := strconv.ParseUint(tok[1:], 16, 32); err == nil {
			return string(rune(n)), nil
		}
	}
	r.i = start
	return nil, r.errorf("unknown character \\%s", tok)
}
