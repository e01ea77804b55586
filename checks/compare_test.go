package checks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

func i64(n int64) *int64 { return &n }

func idSet(ids ...int64) truth.IDSet { return truth.IDSetOf(ids, truth.IDHeadLen) }

func TestCompare(t *testing.T) {
	cols := []string{"state", "n"}
	counts := [][]any{{"open", int64(5)}, {"closed", int64(3)}}
	tests := []struct {
		name     string
		columns  []string
		rows     [][]any
		expect   Expect
		want     Status
		inDetail string
	}{
		{"row count ok", cols, counts, Expect{Rows: i64(2)}, Pass, ""},
		{"row count wrong", cols, counts, Expect{Rows: i64(3)}, Fail, "2 rows, want 3"},
		{"values ok", []string{"e", "name"}, [][]any{{int64(7), "User 7"}}, Expect{Values: map[string]any{"name": "User 7"}}, Pass, ""},
		{"values wrong", []string{"e", "name"}, [][]any{{int64(7), "User 8"}}, Expect{Values: map[string]any{"name": "User 7"}}, Fail, `name = "User 8"`},
		{"values on no rows", []string{"name"}, nil, Expect{Values: map[string]any{"name": "x"}}, Fail, "no rows"},
		{"unknown column", cols, counts, Expect{Values: map[string]any{"nope": 1.0}}, Fail, `no column "nope"`},
		{"map ok across types", cols, counts, Expect{Map: &Map{Key: "state", Value: "n", Want: map[string]any{"open": 5.0, "closed": 3.0}}}, Pass, ""},
		{"map wrong count", cols, counts, Expect{Map: &Map{Key: "state", Value: "n", Want: map[string]any{"open": 4.0, "closed": 3.0}}}, Fail, "open = 5, want 4"},
		{"map extra key", cols, counts, Expect{Map: &Map{Key: "state", Value: "n", Want: map[string]any{"open": 5.0}}}, Fail, "unexpected closed"},
		{"map of boolean keys", []string{"returned", "n"}, [][]any{{int64(0), int64(5)}, {int64(1), int64(3)}},
			Expect{Map: &Map{Key: "returned", Value: "n", Want: map[string]any{"false": 5.0, "true": 3.0}}}, Pass, ""},
		{"map of double keys", []string{"x", "n"}, [][]any{{"0.1234567890123456", int64(2)}},
			Expect{Map: &Map{Key: "x", Value: "n", Want: map[string]any{"0.12345678901234561": 2.0}}}, Pass, ""},
		{"map of boolean keys wrong", []string{"returned", "n"}, [][]any{{int64(0), int64(5)}},
			Expect{Map: &Map{Key: "returned", Value: "n", Want: map[string]any{"false": 5.0, "true": 3.0}}}, Fail, "true missing"},
		{"sum ok", cols, counts, Expect{Sum: &Sum{Column: "n", Want: 8}}, Pass, ""},
		{"sum wrong", cols, counts, Expect{Sum: &Sum{Column: "n", Want: 9}}, Fail, "sum(n) = 8, want 9"},
		{"set ok unordered, numeric text", []string{"attr", "value"}, [][]any{{"p", "4"}, {"t", "x"}},
			Expect{Set: &Set{Columns: []string{"attr", "value"}, Rows: [][]any{{"t", "x"}, {"p", 4.0}}}}, Pass, ""},
		{"set missing row", []string{"a"}, [][]any{{"x"}}, Expect{Set: &Set{Columns: []string{"a"}, Rows: [][]any{{"x"}, {"y"}}}}, Fail, "1 expected rows missing"},
		{"set duplicate row is extra", []string{"a"}, [][]any{{"x"}, {"x"}}, Expect{Set: &Set{Columns: []string{"a"}, Rows: [][]any{{"x"}}}}, Fail, "1 unexpected rows"},
		{"list ok in order", []string{"k", "f"}, [][]any{{"a", "1"}, {"b", "2"}}, Expect{List: &Set{Columns: []string{"k"}, Rows: [][]any{{"a"}, {"b"}}}}, Pass, ""},
		{"list out of order", []string{"k"}, [][]any{{"b"}, {"a"}}, Expect{List: &Set{Columns: []string{"k"}, Rows: [][]any{{"a"}, {"b"}}}}, Fail, `row 1: got ("b"), want ("a") (rows compared in order)`},
		{"list short", []string{"k"}, [][]any{{"a"}}, Expect{List: &Set{Columns: []string{"k"}, Rows: [][]any{{"a"}, {"b"}}}}, Fail, "got 1 rows, want 2: row 2 missing"},
		{"list long", []string{"k"}, [][]any{{"a"}, {"c"}}, Expect{List: &Set{Columns: []string{"k"}, Rows: [][]any{{"a"}}}}, Fail, "row 2 unexpected"},
		{"double printed differently", []string{"v"}, [][]any{{"12.3456789012345"}}, Expect{Values: map[string]any{"v": 12.3456789012345}}, Pass, ""},
		{"bool as int", []string{"b"}, [][]any{{int64(1)}}, Expect{Values: map[string]any{"b": true}}, Pass, ""},
		{"ids printed whole", []string{"e"}, [][]any{{3000000000017.0}}, Expect{Values: map[string]any{"e": 3000000000016.0}}, Fail, "e = 3000000000017, want 3000000000016"},
		{"set shows the first differing row side by side", []string{"e", "s"}, [][]any{{int64(1), "a"}, {int64(2), "x"}},
			Expect{Set: &Set{Columns: []string{"e", "s"}, Rows: [][]any{{1.0, "a"}, {2.0, "b"}}}}, Fail, `first differing row (#2, rows sorted): got (2, "x") | want (2, "b")`},
		{"ids ok in any order and type", []string{"issue"}, [][]any{{"3000000000002"}, {int64(3000000000001)}, {3000000000007.0}},
			Expect{IDs: &IDs{Column: "issue", Want: idSet(3000000000001, 3000000000002, 3000000000007)}}, Pass, ""},
		{"ids off by one with the right count", []string{"issue"}, [][]any{{int64(3000000000002)}, {int64(3000000000003)}},
			Expect{IDs: &IDs{Column: "issue", Want: idSet(3000000000001, 3000000000002)}}, Fail, "first difference at id #1: got 3000000000002, want 3000000000001"},
		{"ids of another column", []string{"issue", "priority"}, [][]any{{int64(3000000000001), int64(4)}, {int64(3000000000002), int64(5)}},
			Expect{IDs: &IDs{Column: "priority", Want: idSet(3000000000001, 3000000000002)}}, Fail, "2 ids in priority as expected, but not the expected ids"},
		{"ids missing one", []string{"issue"}, [][]any{{int64(3000000000001)}},
			Expect{IDs: &IDs{Column: "issue", Want: idSet(3000000000001, 3000000000002)}}, Fail, "1 distinct ids in issue, want 2; first difference at id #2: got none, want 3000000000002"},
		{"ids repeated", []string{"issue"}, [][]any{{int64(3000000000001)}, {int64(3000000000001)}},
			Expect{IDs: &IDs{Column: "issue", Want: idSet(3000000000001)}}, Fail, "id 3000000000001 appears more than once"},
		{"ids not numbers", []string{"issue"}, [][]any{{"open"}},
			Expect{IDs: &IDs{Column: "issue", Want: idSet(3000000000001)}}, Fail, `issue = "open" is not an entity id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.columns, tt.rows, tt.expect)
			if got.Status != tt.want {
				t.Fatalf("status %s, want %s (detail %q)", got.Status, tt.want, got.Detail)
			}
			if !strings.Contains(got.Detail, tt.inDetail) {
				t.Fatalf("detail %q lacks %q", got.Detail, tt.inDetail)
			}
		})
	}
}

func TestParseIDSet(t *testing.T) {
	want := idSet(5, 7, 9)
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	// JSON numbers arrive as float64, the way HCL values reach checks.
	for _, in := range []any{generic, []any{9.0, 5.0, 7.0, 7.0}} {
		got, err := ParseIDSet(in)
		if err != nil {
			t.Fatalf("ParseIDSet(%v): %v", in, err)
		}
		if got.N != want.N || got.Hash != want.Hash || len(got.Head) != 3 || got.Head[0] != 5 {
			t.Fatalf("ParseIDSet(%v) = %+v, want %+v", in, got, want)
		}
	}
	for _, bad := range []any{"x", map[string]any{"n": 1.0, "hash": "zz"}, []any{"open"}, map[string]any{"n": -1.0}} {
		if _, err := ParseIDSet(bad); err == nil {
			t.Errorf("ParseIDSet(%v): no error", bad)
		}
	}
}
