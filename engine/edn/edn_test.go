package edn

import (
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
	inst := time.Date(2024, 3, 1, 12, 30, 0, 250e6, time.UTC)
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`nil`, nil},
		{` true `, true},
		{`false ; a comment`, false},
		{`42`, int64(42)},
		{`-7`, int64(-7)},
		{`+3`, int64(3)},
		{`12N`, big.NewInt(12)},
		{`99999999999999999999`, func() any { b, _ := new(big.Int).SetString("99999999999999999999", 10); return b }()},
		{`3.5`, 3.5},
		{`1e3`, 1000.0},
		{`2.5M`, 2.5},
		{`"a\"b\\c\n\u00e9"`, "a\"b\\c\né"},
		{`\a`, "a"},
		{`\newline`, "\n"},
		{`\u00e9`, "é"},
		{`:issue/state`, Keyword("issue/state")},
		{`:open`, Keyword("open")},
		{`sym/bol`, Symbol("sym/bol")},
		{`[1 "x" :k]`, []any{int64(1), "x", Keyword("k")}},
		{`[1, 2,3]`, []any{int64(1), int64(2), int64(3)}},
		{`(1 2)`, List{int64(1), int64(2)}},
		{`#{[1 2] [3 4]}`, Set{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}}},
		{`{:a 1 "b" [2]}`, Map{{Keyword("a"), int64(1)}, {"b", []any{int64(2)}}}},
		{`#inst "2024-03-01T12:30:00.250Z"`, inst},
		{`#inst "2024-03-01T13:30:00.250+01:00"`, inst},
		{`#uuid "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"`, "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
		{`#my/tag [1]`, Tagged{Tag: "my/tag", Value: []any{int64(1)}}},
		{`[1 #_ 2 3]`, []any{int64(1), int64(3)}},
		{`[]`, []any{}},
		{`##Inf`, math.Inf(1)},
	} {
		got, err := Decode([]byte(tc.in))
		if err != nil {
			t.Errorf("Decode(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Decode(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "unexpected end"},
		{`[1 2`, `missing ']'`},
		{`"abc`, "unterminated string"},
		{`{:a}`, "even number"},
		{`]`, `unexpected ']'`},
		{`1 2`, "after the value"},
		{`#inst 5`, "#inst needs a string"},
		{`#inst "yesterday"`, "RFC 3339"},
		{`1.2.3`, "malformed float"},
		{`:`, "malformed keyword"},
		{`##Foo`, "unknown symbolic value"},
		{`"\q"`, "unknown escape"},
		{`\nope`, "unknown character"},
		{strings.Repeat("[", 2000), "nested deeper"},
	} {
		_, err := Decode([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%q) error = %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}
