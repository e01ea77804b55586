package checks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Status is a check's outcome.
type Status string

const (
	Pass Status = "PASS"
	Fail Status = "FAIL"
	Skip Status = "SKIP" // the answer could not be had within limits
)

// Outcome is a check's status with a one-line detail.
type Outcome struct {
	Status Status
	Detail string
}

// Compare checks rows (with their column names) against e. Values are
// compared loosely across types the way databases return them: numbers
// numerically (a numeric string equals its number), booleans equal 1/0 and
// "true"/"false".
func Compare(columns []string, rows [][]any, e Expect) Outcome {
	var fails []string
	col := func(name string) (int, bool) {
		for i, c := range columns {
			if strings.EqualFold(c, name) {
				return i, true
			}
		}
		fails = append(fails, fmt.Sprintf("no column %q (columns: %s)", name, strings.Join(columns, ", ")))
		return 0, false
	}
	if e.Rows != nil && int64(len(rows)) != *e.Rows {
		fails = append(fails, fmt.Sprintf("%d rows, want %d", len(rows), *e.Rows))
	}
	if e.Values != nil {
		if len(rows) == 0 {
			fails = append(fails, "no rows, want values "+render(e.Values))
		}
		names := sortedKeys(e.Values)
		for _, n := range names {
			i, ok := col(n)
			if !ok {
				continue
			}
			for r, row := range rows {
				if !Equal(row[i], e.Values[n]) {
					fails = append(fails, fmt.Sprintf("row %d: %s = %s, want %s", r+1, n, render(row[i]), render(e.Values[n])))
					break
				}
			}
		}
	}
	if e.Set != nil {
		idx := make([]int, 0, len(e.Set.Columns))
		ok := true
		for _, c := range e.Set.Columns {
			i, found := col(c)
			ok = ok && found
			idx = append(idx, i)
		}
		if ok {
			fails = append(fails, compareSet(idx, rows, e.Set.Rows)...)
		}
	}
	if e.List != nil {
		idx := make([]int, 0, len(e.List.Columns))
		ok := true
		for _, c := range e.List.Columns {
			i, found := col(c)
			ok = ok && found
			idx = append(idx, i)
		}
		if ok {
			fails = append(fails, compareList(idx, rows, e.List.Rows)...)
		}
	}
	if e.Map != nil {
		ki, ok1 := col(e.Map.Key)
		vi, ok2 := col(e.Map.Value)
		if ok1 && ok2 {
			got := map[string]any{}
			for _, row := range rows {
				k := Key(row[ki])
				if _, dup := got[k]; dup {
					fails = append(fails, fmt.Sprintf("key %s appears twice", k))
				}
				got[k] = row[vi]
			}
			// Want's keys are values as text (truth's count_by gives
			// "true", 4.25, ...): compare them by Key like the rows'.
			wantKeys := map[string]bool{}
			for _, k := range sortedKeys(e.Map.Want) {
				wantKeys[Key(k)] = true
				g, ok := got[Key(k)]
				if !ok {
					fails = append(fails, fmt.Sprintf("%s missing, want %s", k, render(e.Map.Want[k])))
				} else if !Equal(g, e.Map.Want[k]) {
					fails = append(fails, fmt.Sprintf("%s = %s, want %s", k, render(g), render(e.Map.Want[k])))
				}
			}
			for _, k := range sortedKeys(got) {
				if !wantKeys[k] {
					fails = append(fails, fmt.Sprintf("unexpected %s = %s", k, render(got[k])))
				}
			}
		}
	}
	if e.Sum != nil {
		if i, ok := col(e.Sum.Column); ok {
			var total float64
			for _, row := range rows {
				f, ok := number(row[i])
				if !ok {
					fails = append(fails, fmt.Sprintf("%s = %s is not a number", e.Sum.Column, render(row[i])))
					break
				}
				total += f
			}
			if !closeEnough(total, e.Sum.Want) {
				fails = append(fails, fmt.Sprintf("sum(%s) = %s, want %s", e.Sum.Column, render(total), render(e.Sum.Want)))
			}
		}
	}
	if e.IDs != nil {
		if i, ok := col(e.IDs.Column); ok {
			fails = append(fails, compareIDs(e.IDs.Column, i, rows, e.IDs.Want)...)
		}
	}
	if len(fails) > 0 {
		const max = 5
		more := ""
		if len(fails) > max {
			more = fmt.Sprintf(" (and %d more)", len(fails)-max)
			fails = fails[:max]
		}
		return Outcome{Status: Fail, Detail: strings.Join(fails, "; ") + more}
	}
	return Outcome{Status: Pass, Detail: fmt.Sprintf("%d rows as expected", len(rows))}
}

// compareList compares the projected rows with want, row by row in
// order, and shows the first position where they differ.
func compareList(idx []int, rows [][]any, want [][]any) []string {
	for r := 0; r < max(len(rows), len(want)); r++ {
		var got []any
		if r < len(rows) {
			got = make([]any, len(idx))
			for j, i := range idx {
				got[j] = rows[r][i]
			}
		}
		switch {
		case r >= len(rows):
			return []string{fmt.Sprintf("got %d rows, want %d: row %d missing, want %s", len(rows), len(want), r+1, render(want[r]))}
		case r >= len(want):
			return []string{fmt.Sprintf("got %d rows, want %d: row %d unexpected: %s", len(rows), len(want), r+1, render(got))}
		}
		for j := range got {
			if !Equal(got[j], want[r][j]) {
				return []string{fmt.Sprintf("row %d: got %s, want %s (rows compared in order)", r+1, render(got), render(want[r]))}
			}
		}
	}
	return nil
}

// compareSet compares the projected rows with want as multisets.
func compareSet(idx []int, rows [][]any, want [][]any) []string {
	key := func(vals []any) string {
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = Key(v)
		}
		return strings.Join(parts, "\x1f")
	}
	got := map[string]int{}
	gotRow := map[string][]any{}
	for _, row := range rows {
		proj := make([]any, len(idx))
		for j, i := range idx {
			proj[j] = row[i]
		}
		k := key(proj)
		got[k]++
		gotRow[k] = proj
	}
	wantN := map[string]int{}
	wantRow := map[string][]any{}
	for _, w := range want {
		k := key(w)
		wantN[k]++
		wantRow[k] = w
	}
	var fails []string
	var missing, extra []string
	for _, k := range sortedKeys(wantN) {
		if got[k] < wantN[k] {
			missing = append(missing, render(wantRow[k]))
		}
	}
	for _, k := range sortedKeys(got) {
		if got[k] > wantN[k] {
			extra = append(extra, render(gotRow[k]))
		}
	}
	if len(missing) > 0 {
		fails = append(fails, fmt.Sprintf("%d expected rows missing, e.g. %s", len(missing), missing[0]))
	}
	if len(extra) > 0 {
		fails = append(fails, fmt.Sprintf("%d unexpected rows, e.g. %s", len(extra), extra[0]))
	}
	if len(fails) > 0 {
		fails = append(fails, fmt.Sprintf("got %d rows, want %d", len(rows), len(want)))
		fails = append(fails, firstRowDiff(got, gotRow, wantN, wantRow))
	}
	return fails
}

// firstRowDiff puts the first differing row of got and want side by
// side, both sorted by their canonical keys.
func firstRowDiff(got map[string]int, gotRow map[string][]any, want map[string]int, wantRow map[string][]any) string {
	expand := func(n map[string]int) []string {
		var out []string
		for _, k := range sortedKeys(n) {
			for j := 0; j < n[k]; j++ {
				out = append(out, k)
			}
		}
		return out
	}
	g, w := expand(got), expand(want)
	for j := 0; j < len(g) || j < len(w); j++ {
		gk, wk, gs, ws := "\x00none", "\x00none", "none", "none"
		if j < len(g) {
			gk, gs = g[j], render(gotRow[g[j]])
		}
		if j < len(w) {
			wk, ws = w[j], render(wantRow[w[j]])
		}
		if gk != wk {
			return fmt.Sprintf("first differing row (#%d, rows sorted): got %s | want %s", j+1, gs, ws)
		}
	}
	return "rows agree once sorted"
}

// Key is a canonical text of a value, so that values equal under Equal
// (for numbers, booleans and text) share a key.
func Key(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00null"
	case bool:
		if x {
			return "1"
		}
		return "0"
	case string:
		if f, ok := parseNumber(x); ok {
			return numKey(f)
		}
		switch x {
		case "true":
			return "1"
		case "false":
			return "0"
		}
		return x
	case []byte:
		return Key(string(x))
	case time.Time:
		return numKey(float64(x.UnixMilli()))
	}
	if f, ok := number(v); ok {
		return numKey(f)
	}
	return fmt.Sprint(v)
}

func numKey(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return strconv.FormatInt(int64(f), 10)
	}
	// Databases print doubles with different digits: compare to 12
	// significant digits.
	return strconv.FormatFloat(f, 'g', 12, 64)
}

// Equal compares a database value with an expected one loosely (see
// Compare).
func Equal(got, want any) bool {
	if a, ok := number(got); ok {
		if b, ok := number(want); ok {
			return closeEnough(a, b)
		}
	}
	return Key(got) == Key(want)
}

func closeEnough(a, b float64) bool {
	if a == b {
		return true
	}
	if a == math.Trunc(a) && b == math.Trunc(b) {
		// Two whole numbers (ids, counts) are equal only exactly: a
		// relative tolerance would let id e + 1 pass for e.
		return false
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func parseNumber(s string) (float64, bool) {
	if s == "" || strings.TrimSpace(s) != s {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		return parseNumber(x)
	case []byte:
		return parseNumber(string(x))
	case time.Time:
		return float64(x.UnixMilli()), true
	}
	return 0, false
}

func render(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		// Ids and counts reach checks as float64: print whole numbers
		// whole, never in scientific notation.
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			parts = append(parts, k+"="+render(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
