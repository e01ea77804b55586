package protocol

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// parseCountReply reads the measured path's reply, a flat object of
// "ok": true, "n" and "store_us" in any order without spaces, in a few
// hundred nanoseconds; ok is false for any other line, which ParseReply
// then decodes in full.
func parseCountReply(line []byte) (rep *Reply, ok bool) {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return nil, false
	}
	r := &Reply{}
	seenOK, seenN, seenStore := false, false, false
	i := 1
	for {
		if i >= len(line)-1 || line[i] != '"' {
			return nil, false
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				return nil, false
			}
			j++
		}
		if j+1 >= len(line) || line[j+1] != ':' {
			return nil, false
		}
		key := string(line[i+1 : j])
		k := j + 2
		e := k
		for e < len(line)-1 && line[e] != ',' {
			e++
		}
		val := line[k:e]
		switch key {
		case "ok":
			if seenOK || string(val) != "true" {
				return nil, false
			}
			seenOK, r.OK = true, true
		case "n":
			n, err := strconv.ParseInt(string(val), 10, 64)
			if seenN || err != nil || n < 0 || !isJSONNumber(val) {
				return nil, false
			}
			seenN, r.N = true, n
		case "store_us":
			f, err := strconv.ParseFloat(string(val), 64)
			if seenStore || err != nil || f < 0 || math.IsInf(f, 0) || !isJSONNumber(val) {
				return nil, false
			}
			seenStore, r.StoreUS = true, &f
		default:
			return nil, false
		}
		if e == len(line)-1 {
			break
		}
		i = e + 1
	}
	if !seenOK || !utf8.Valid(line) {
		return nil, false
	}
	return r, true
}

// isJSONNumber reports whether b is a number as JSON writes one (no
// Inf, NaN, hex, underscores or leading +).
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	if b[i] == '0' {
		i++
	} else if b[i] >= '1' && b[i] <= '9' {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(b)
}

// AppendValue appends a parameter as JSON and returns its type name, as
// Param does, without boxing the common types.
func AppendValue(b []byte, v any) ([]byte, string, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), "null", true
	case int64:
		return strconv.AppendInt(b, x, 10), "int", true
	case int:
		return strconv.AppendInt(b, int64(x), 10), "int", true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return b, "", false
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), "real", true
	case bool:
		return strconv.AppendBool(b, x), "bool", true
	case string:
		return appendString(b, x), "text", true
	}
	return b, "", false
}

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD
// as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
