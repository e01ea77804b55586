package crosscheck

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestCrossBackendNormalises(t *testing.T) {
	// What each driver hands back for the same answer: SQLite int64 and
	// float64, PostgreSQL numeric and bigint as text or int64, DuckDB
	// decimals as float64, in any row order and column order.
	cases := []struct {
		name       string
		colsA      []string
		rowsA      [][]any
		colsB      []string
		rowsB      [][]any
		agree      bool
		diffNeedle string
	}{
		{"int64 vs float64 vs numeric text", []string{"state", "n"}, [][]any{{"open", int64(3)}, {"closed", int64(2)}},
			[]string{"state", "n"}, [][]any{{"open", "3"}, {"closed", float64(2)}}, true, ""},
		{"row order", []string{"e"}, [][]any{{int64(1)}, {int64(2)}, {int64(3)}},
			[]string{"e"}, [][]any{{int64(3)}, {int64(1)}, {int64(2)}}, true, ""},
		{"column order and case", []string{"e", "name"}, [][]any{{int64(1), "a"}},
			[]string{"NAME", "E"}, [][]any{{"a", int64(1)}}, true, ""},
		{"averages to 12 digits", []string{"avg"}, [][]any{{4.25}}, []string{"avg"}, [][]any{{"4.2500000000000000"}}, true, ""},
		{"booleans", []string{"b"}, [][]any{{true}}, []string{"b"}, [][]any{{int64(1)}}, true, ""},
		{"nulls", []string{"x"}, [][]any{{nil}}, []string{"x"}, [][]any{{nil}}, true, ""},
		{"null is not the text null", []string{"x"}, [][]any{{nil}}, []string{"x"}, [][]any{{"null"}}, false, `a (null) | b ("null")`},
		{"e vs e + 1", []string{"e"}, [][]any{{int64(3000000000372)}}, []string{"e"}, [][]any{{int64(3000000000373)}}, false,
			"#1, rows sorted): a (3000000000372) | b (3000000000373)"},
		{"one row more", []string{"e"}, [][]any{{int64(1)}}, []string{"e"}, [][]any{{int64(1)}, {int64(2)}}, false,
			"a 1 rows, b 2 rows; first differing row (#2, rows sorted): a none | b (2)"},
		{"other columns", []string{"e"}, [][]any{{int64(1)}}, []string{"id"}, [][]any{{int64(1)}}, false, "columns differ: a (e) | b (id)"},
		{"text with a newline stays one line", []string{"t"}, [][]any{{"x\ny"}}, []string{"t"}, [][]any{{"x y"}}, false, `a ("x\ny") | b ("x y")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := New("xs", t.TempDir())
			defer x.Close()
			if err := x.Record("a", "s", "c", "case", "", tc.colsA, tc.rowsA); err != nil {
				t.Fatal(err)
			}
			if err := x.Record("b", "s", "c", "case", "", tc.colsB, tc.rowsB); err != nil {
				t.Fatal(err)
			}
			lines := x.Lines()
			if len(lines) != 1 {
				t.Fatalf("lines %v", lines)
			}
			l := lines[0]
			if tc.agree != (l.Status == "PASS") {
				t.Fatalf("status %s, want agree=%v: %s", l.Status, tc.agree, l.Detail)
			}
			if !tc.agree && !strings.Contains(l.Detail, tc.diffNeedle) {
				t.Errorf("detail %q lacks %q", l.Detail, tc.diffNeedle)
			}
			if l.Backend != "a+b" || l.Name != "c (cross-backend)" {
				t.Errorf("line names %q %q", l.Backend, l.Name)
			}
		})
	}
}

// A long answer is kept on disk, not in memory, and the first difference
// past the rows kept in memory is still found row by row.
func TestCrossBackendLongAnswers(t *testing.T) {
	x := New("xs", t.TempDir())
	n := 10 * crossKeep
	rows := func(bad int) [][]any {
		out := make([][]any, n)
		for i := range out {
			out[i] = []any{int64(1000 + i), fmt.Sprintf("v%d", i)}
			if i == bad {
				out[i][1] = "changed"
			}
		}
		return out
	}
	if err := x.Record("a", "s", "c", "k", "[k] ", []string{"e", "v"}, rows(-1)); err != nil {
		t.Fatal(err)
	}
	ref := x.checks[crossID{"s", "c"}].cases["k"].ref
	if len(ref.head) != crossKeep || ref.file == "" {
		t.Fatalf("kept %d rows in memory, file %q", len(ref.head), ref.file)
	}
	if err := x.Record("b", "s", "c", "k", "[k] ", []string{"e", "v"}, rows(-1)); err != nil {
		t.Fatal(err)
	}
	if err := x.Record("c", "s", "c", "k", "[k] ", []string{"e", "v"}, rows(5*crossKeep)); err != nil {
		t.Fatal(err)
	}
	l := x.Lines()[0]
	want := fmt.Sprintf(`[k] a %d rows, c %d rows; first differing row (#%d, rows sorted): a (%d, "v%d") | c (%d, "changed")`,
		n, n, 5*crossKeep+1, 1000+5*crossKeep, 5*crossKeep, 1000+5*crossKeep)
	if l.Status != "FAIL" || !strings.Contains(l.Detail, want) || !strings.HasPrefix(l.Detail, "c differ(s) from a in 1 of 1 cases") {
		t.Errorf("got %s %s\nwant %s", l.Status, l.Detail, want)
	}
	dir := x.dir
	x.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the answers' directory %s is left: %v", dir, err)
	}
}
