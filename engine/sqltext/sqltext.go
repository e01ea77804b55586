// Package sqltext reads the SQL texts of a spec: it splits a file into
// statements and rewrites :name parameters into a dialect's positional
// markers, skipping quotes, comments and PostgreSQL's :: casts.
package sqltext

import (
	"fmt"
	"strings"
)

// Statements splits text on top-level semicolons, dropping empty ones.
func Statements(text string) []string {
	var out []string
	start := 0
	scan(text, func(i int, c byte) {
		if c == ';' {
			if s := strings.TrimSpace(text[start:i]); s != "" && !onlyComments(s) {
				out = append(out, s)
			}
			start = i + 1
		}
	}, nil)
	if s := strings.TrimSpace(text[start:]); s != "" && !onlyComments(s) {
		out = append(out, s)
	}
	return out
}

func onlyComments(s string) bool {
	code := false
	scan(s, func(i int, c byte) {
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			code = true
		}
	}, nil)
	return !code
}

// Bound is a statement with positional markers and the parameter name of
// each marker, in order (a name used twice appears twice).
type Bound struct {
	SQL   string
	Names []string
}

// Bind rewrites :name parameters with placeholder(i) (i from 1).
func Bind(text string, placeholder func(i int) string) (Bound, error) {
	var b strings.Builder
	var names []string
	last := 0
	var err error
	qmarks := false
	scan(text, func(_ int, c byte) { qmarks = qmarks || c == '?' }, func(start, end int) {
		name := text[start+1 : end]
		b.WriteString(text[last:start])
		names = append(names, name)
		b.WriteString(placeholder(len(names)))
		last = end
	})
	b.WriteString(text[last:])
	if qmarks && len(names) > 0 {
		err = fmt.Errorf("the SQL mixes ? markers with :name parameters; use :name only")
	}
	return Bound{SQL: b.String(), Names: names}, err
}

// Params lists the distinct :name parameters of text in order.
func Params(text string) []string {
	seen := map[string]bool{}
	var out []string
	scan(text, nil, func(start, end int) {
		n := text[start+1 : end]
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	})
	return out
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }

// scan walks SQL text calling code for each byte outside quotes and
// comments, and param for each :name parameter (start at the colon).
func scan(s string, code func(i int, c byte), param func(start, end int)) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += j + 3
			}
		case c == '$' && i+1 < len(s) && (s[i+1] == '$' || isIdentStart(s[i+1])):
			// PostgreSQL dollar quoting: $tag$ ... $tag$
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			if j < len(s) && s[j] == '$' {
				tag := s[i : j+1]
				k := strings.Index(s[j+1:], tag)
				if k < 0 {
					i = len(s)
				} else {
					i = j + 1 + k + len(tag) - 1
				}
			} else if code != nil {
				code(i, c)
			}
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			if code != nil {
				code(i, c)
				code(i+1, ':')
			}
			i++
		case c == ':' && i+1 < len(s) && isIdentStart(s[i+1]) && (i == 0 || !isIdent(s[i-1])):
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			if param != nil {
				param(i, j)
			}
			i = j - 1
		default:
			if code != nil {
				code(i, c)
			}
		}
	}
}
