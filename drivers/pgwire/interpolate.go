package pgwire

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
)

// splitSQL splits sql at its $n placeholders for the simple protocol's
// counted path: strings are SQL text, ints placeholder numbers. It skips
// what pgx's own interpolation skips (quoted strings and identifiers,
// escape strings, dollar quotes, comments), so both send the same text. nil
// (invalid UTF-8) leaves the statement to pgx.
func splitSQL(sql string) []any {
	if !utf8.ValidString(sql) {
		return nil
	}
	var parts []any
	start, i := 0, 0
	n := len(sql)
	at := func(j int) byte {
		if j < n {
			return sql[j]
		}
		return 0
	}
	// quoted skips to the end of a quote opened before i; esc: backslash
	// escapes (E'...').
	quoted := func(q byte, esc bool) {
		for i < n {
			c := sql[i]
			i++
			switch {
			case esc && c == '\\':
				if i < n {
					_, w := utf8.DecodeRuneInString(sql[i:])
					i += w
				}
			case c == q:
				if at(i) != q {
					return
				}
				i++
			}
		}
	}
	for i < n {
		c := sql[i]
		i++
		switch c {
		case 'e', 'E':
			if at(i) == '\'' {
				i++
				quoted('\'', true)
			}
		case '\'', '"':
			quoted(c, false)
		case '$':
			if d := at(i); d >= '0' && d <= '9' {
				if i-1 > start {
					parts = append(parts, sql[start:i-1])
				}
				num := 0
				for ; i < n && sql[i] >= '0' && sql[i] <= '9'; i++ {
					if num > (1<<31-10)/10 {
						num = 1<<31 - 1
					} else {
						num = num*10 + int(sql[i]-'0')
					}
				}
				parts = append(parts, num)
				start = i
			} else if tag, ok := dollarTag(sql[i:]); ok {
				i += len(tag) + 1
				if j := strings.Index(sql[i:], "$"+tag+"$"); j >= 0 {
					i += j + len(tag) + 2
				} else {
					i = n
				}
			}
		case '-':
			if at(i) == '-' {
				for i < n && sql[i] != '\n' && sql[i] != '\r' {
					i++
				}
				if i < n {
					i++
				}
			}
		case '/':
			if at(i) == '*' {
				i++
				for nested := 0; i < n; {
					c := sql[i]
					i++
					if c == '/' && at(i) == '*' {
						i++
						nested++
					} else if c == '*' && at(i) == '/' {
						i++
						if nested == 0 {
							break
						}
						nested--
					}
				}
			}
		}
	}
	if start < n {
		parts = append(parts, sql[start:])
	}
	return parts
}

// dollarTag returns the tag of a dollar quote whose first $ was just
// read: s starts with the tag and its closing $.
func dollarTag(s string) (string, bool) {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '$':
			return s[:i], true
		case r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (r >= 0x80 && r != utf8.RuneError):
		case i > 0 && '0' <= r && r <= '9':
		default:
			return "", false
		}
		i += w
	}
	return "", false
}

// interpolate appends parts with args in place of the placeholders to
// dst, as pgx's simple protocol does: each argument in its text form as a
// quoted literal (or null) between spaces. ok is false where pgx would
// fail (a missing or unused argument, one it cannot encode): its own path
// then reports the error.
func interpolate(dst []byte, m *pgtype.Map, parts []any, args []any) ([]byte, bool) {
	var used uint64 // arguments beyond 64 are left to pgx
	if len(args) > 64 || parts == nil {
		return dst, false
	}
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			dst = append(dst, p...)
		case int:
			if p < 1 || p > len(args) {
				return dst, false
			}
			used |= 1 << (p - 1)
			dst = append(dst, ' ')
			if a := args[p-1]; a == nil {
				dst = append(dst, "null"...)
			} else if str, ok := a.(string); ok {
				// What m.Encode does with any string, without its lookups.
				start := len(dst)
				dst = quoteInPlace(append(dst, str...), start)
			} else if n, ok := a.(int64); ok {
				// What m.Encode does with a whole number (its decimal
				// text, quoted), without planning an encoding per call:
				// most of what a write binds.
				dst = append(strconv.AppendInt(append(dst, '\''), n, 10), '\'')
			} else {
				start := len(dst)
				enc, err := m.Encode(0, pgtype.TextFormatCode, a, dst)
				if err != nil {
					return dst, false
				}
				if enc == nil {
					dst = append(dst[:start], "null"...)
				} else {
					dst = quoteInPlace(enc, start)
				}
			}
			dst = append(dst, ' ')
		}
	}
	if used != 1<<len(args)-1 {
		return dst, false
	}
	return dst, true
}

// quoteInPlace quotes b[start:] as an SQL string literal (quotes doubled;
// standard_conforming_strings is on, so backslashes are plain).
func quoteInPlace(b []byte, start int) []byte {
	quotes := 0
	for _, c := range b[start:] {
		if c == '\'' {
			quotes++
		}
	}
	end := len(b)
	b = slices.Grow(b, quotes+2)[:end+quotes+2]
	w := len(b) - 1
	b[w] = '\''
	for r := end - 1; r >= start; r-- {
		w--
		b[w] = b[r]
		if b[r] == '\'' {
			w--
			b[w] = '\''
		}
	}
	b[start] = '\''
	return b
}
