package answer

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
	inst := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		format   string
		value    any
		columns  []string
		wantCols []string
		wantRows [][]any
	}{
		{"json arrays", JSON, `[[1, "Ann", 2.5], [2, "Bob", null]]`, []string{"e", "name", "x"},
			[]string{"e", "name", "x"}, [][]any{{int64(1), "Ann", 2.5}, {int64(2), "Bob", nil}}},
		{"json arrays unnamed", JSON, `[[1, true]]`, nil, []string{"1", "2"}, [][]any{{int64(1), true}}},
		{"json objects keep key order", JSON, []byte(`[{"state": "open", "n": 3}, {"n": 1, "state": "closed"}]`), nil,
			[]string{"state", "n"}, [][]any{{"open", int64(3)}, {"closed", int64(1)}}},
		{"json scalars", JSON, `[10, 11]`, []string{"issue"}, []string{"issue"}, [][]any{{int64(10)}, {int64(11)}}},
		{"json nested value as text", JSON, `[[1, [2, 3]]]`, []string{"a", "b"}, []string{"a", "b"}, [][]any{{int64(1), "[2,3]"}}},
		{"json empty", JSON, `[]`, []string{"a"}, []string{"a"}, [][]any{}},
		{"null is no rows", JSON, nil, []string{"a"}, []string{"a"}, [][]any{}},
		{"edn set of tuples", EDN, `#{[1 "Ann" :open] [2 "Bob" :closed]}`, []string{"e", "name", "state"},
			[]string{"e", "name", "state"}, [][]any{{int64(1), "Ann", "open"}, {int64(2), "Bob", "closed"}}},
		{"edn vector with instants", EDN, `[[1 #inst "2024-01-02T03:04:05.000Z" 2.0]]`, []string{"e", "t", "x"},
			[]string{"e", "t", "x"}, [][]any{{int64(1), inst, 2.0}}},
		{"edn maps", EDN, `[{:state :open :n 3}]`, nil, []string{"state", "n"}, [][]any{{"open", int64(3)}}},
		{"edn scalars", EDN, `[1 2]`, []string{"issue"}, []string{"issue"}, [][]any{{int64(1)}, {int64(2)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows, err := Decode(tc.format, [][]any{{tc.value}}, tc.columns)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cols, tc.wantCols) || !reflect.DeepEqual(rows, tc.wantRows) {
				t.Errorf("got %v %#v, want %v %#v", cols, rows, tc.wantCols, tc.wantRows)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		rows         [][]any
		columns      []string
		want         string
	}{
		{"no row", JSON, [][]any{}, nil, "returned 0 rows"},
		{"two rows", JSON, [][]any{{"[]"}, {"[]"}}, nil, "returned 2 rows"},
		{"not text", JSON, [][]any{{int64(5)}}, nil, "int64, not text"},
		{"corrupt json", JSON, [][]any{{`[[1, "a"], [2, "b"`}}, nil, `the answer starts "[[1, \"a\"], [2, \"b\""`},
		{"json object", JSON, [][]any{{`{"a": 1}`}}, nil, "not a JSON array"},
		{"trailing json", JSON, [][]any{{`[] x`}}, nil, "text after"},
		{"ragged", JSON, [][]any{{`[[1, 2], [3]]`}}, nil, "row 2 has 1 values"},
		{"mixed", JSON, [][]any{{`[[1], {"a": 1}]`}}, nil, "mixes tuples and maps"},
		{"width vs columns", EDN, [][]any{{`[[1 2]]`}}, []string{"a"}, "names 1 columns"},
		{"corrupt edn", EDN, [][]any{{`#{[1 "a"] [2 "b`}}, nil, "unterminated string"},
		{"edn map at top", EDN, [][]any{{`{:a 1}`}}, nil, "not an EDN vector, list or set but a map"},
		{"long head cut", EDN, [][]any{{"[" + strings.Repeat("x ", 100) + "#"}}, nil, `x"...`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decode(tc.format, tc.rows, tc.columns)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
