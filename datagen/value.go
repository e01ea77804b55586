package datagen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Class returns the storage class of t, and false for an unknown type.
func (t ValueType) Class() (Class, bool) {
	switch t {
	case TypeString, TypeKeyword:
		return ClassText, true
	case TypeLong, TypeRef, TypeInstant, TypeBoolean:
		return ClassInt, true
	case TypeDouble:
		return ClassReal, true
	}
	return ClassText, false
}

// String returns the class name used in specs and file names.
func (c Class) String() string {
	if c >= 0 && int(c) < len(ClassNames) {
		return ClassNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Class returns the storage class of v's type.
func (v Value) Class() Class {
	c, _ := v.Type.Class()
	return c
}

// Equal reports whether v and w hold the same typed value.
func (v Value) Equal(w Value) bool {
	if v.Type != w.Type {
		return false
	}
	switch v.Class() {
	case ClassText:
		return v.Str == w.Str
	case ClassReal:
		return v.Float == w.Float
	}
	return v.Int == w.Int
}

// AppendText appends the value as text: strings as is, integers (ref:
// the target entity id, instant: epoch ms) in decimal, booleans as
// true/false, doubles in strconv 'g' format.
func (v Value) AppendText(dst []byte) []byte {
	switch v.Class() {
	case ClassText:
		return append(dst, v.Str...)
	case ClassReal:
		return strconv.AppendFloat(dst, v.Float, 'g', -1, 64)
	}
	if v.Type == TypeBoolean {
		return strconv.AppendBool(dst, v.Int != 0)
	}
	return strconv.AppendInt(dst, v.Int, 10)
}

// String returns AppendText as a string.
func (v Value) String() string {
	if v.Class() == ClassText {
		return v.Str
	}
	return string(v.AppendText(nil))
}

// Any returns the value as a Go value for JSON and for comparing with
// query results: string (text), bool (boolean), int64 (long, ref,
// instant) or float64 (double).
func (v Value) Any() any {
	switch v.Class() {
	case ClassText:
		return v.Str
	case ClassReal:
		return v.Float
	}
	if v.Type == TypeBoolean {
		return v.Int != 0
	}
	return v.Int
}

// Compare orders two values of one type: numerically for numeric
// classes, bytewise for text.
func (v Value) Compare(w Value) int {
	return CompareAs(v.Class(), v, w)
}

// CompareAs is Compare with the class known, skipping the type lookup.
func CompareAs(cl Class, v, w Value) int {
	switch cl {
	case ClassText:
		return strings.Compare(v.Str, w.Str)
	case ClassReal:
		switch {
		case v.Float < w.Float:
			return -1
		case v.Float > w.Float:
			return 1
		}
		return 0
	}
	switch {
	case v.Int < w.Int:
		return -1
	case v.Int > w.Int:
		return 1
	}
	return 0
}

// ParseValue parses s as a value of type t: long and ref as decimal
// integers (ref: an entity id), double as a finite float, boolean as
// true/false, instant as RFC 3339 or epoch milliseconds, string and
// keyword as is.
func ParseValue(t ValueType, s string) (Value, error) {
	v := Value{Type: t}
	switch t {
	case TypeString, TypeKeyword:
		v.Str = s
	case TypeLong, TypeRef:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return v, fmt.Errorf("%q is not a %s: %w", s, t, err)
		}
		v.Int = n
	case TypeDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return v, fmt.Errorf("%q is not a double: %w", s, err)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return v, fmt.Errorf("%q is not a finite double", s)
		}
		v.Float = f
	case TypeBoolean:
		switch strings.TrimSpace(s) {
		case "true":
			v.Int = 1
		case "false":
		default:
			return v, fmt.Errorf("%q is not a boolean (true or false)", s)
		}
	case TypeInstant:
		ms, err := parseInstant(s)
		if err != nil {
			return v, err
		}
		v.Int = ms
	default:
		return v, fmt.Errorf("unknown value type %q", t)
	}
	return v, nil
}

// parseInstant accepts RFC 3339 or epoch milliseconds.
func parseInstant(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an instant (RFC 3339 or epoch ms)", s)
	}
	return t.UnixMilli(), nil
}
