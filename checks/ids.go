package checks

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// IDs is a check that a column holds exactly a set of entity ids: the
// distinct values, read as integers, must have the size and fingerprint
// of Want. A wrong id with the right row count fails; Want.Head (the
// smallest ids) shows the first difference side by side.
type IDs struct {
	Column string
	Want   truth.IDSet
}

// ParseIDSet reads an expected id set as a spec gives it: the object a
// truth's id set becomes ({n, hash, head}), or a plain list of ids.
func ParseIDSet(v any) (truth.IDSet, error) {
	switch x := v.(type) {
	case []any:
		ids := make([]int64, 0, len(x))
		for _, e := range x {
			id, ok := asID(e)
			if !ok {
				return truth.IDSet{}, fmt.Errorf("%s is not an entity id", render(e))
			}
			ids = append(ids, id)
		}
		return truth.IDSetOf(ids, len(ids)), nil
	case map[string]any:
		var s truth.IDSet
		n, ok := asID(x["n"])
		if !ok || n < 0 {
			return s, fmt.Errorf("n = %s is not a count", render(x["n"]))
		}
		h, _ := x["hash"].(string)
		hv, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			return s, fmt.Errorf("hash = %s is not a hexadecimal fingerprint", render(x["hash"]))
		}
		s.N, s.Hash = n, truth.IDHash(hv)
		head, _ := x["head"].([]any)
		for _, e := range head {
			id, ok := asID(e)
			if !ok {
				return s, fmt.Errorf("head holds %s, not an entity id", render(e))
			}
			s.Head = append(s.Head, id)
		}
		return s, nil
	}
	return truth.IDSet{}, fmt.Errorf("want an id set (a truth's ids) or a list of ids, got %s", render(v))
}

// asID reads a whole number exactly as an int64.
func asID(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, true
		}
	case []byte:
		return asID(string(x))
	}
	if f, ok := number(v); ok && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
		return int64(f), true
	}
	return 0, false
}

// compareIDs compares column i of rows with want.
func compareIDs(col string, i int, rows [][]any, want truth.IDSet) []string {
	got := make([]int64, 0, len(rows))
	for _, row := range rows {
		id, ok := asID(row[i])
		if !ok {
			return []string{fmt.Sprintf("%s = %s is not an entity id", col, render(row[i]))}
		}
		got = append(got, id)
	}
	sort.Slice(got, func(a, b int) bool { return got[a] < got[b] })
	var fails []string
	distinct := got[:0:0]
	for j, id := range got {
		if j > 0 && got[j-1] == id {
			if len(fails) == 0 {
				fails = append(fails, fmt.Sprintf("id %d appears more than once", id))
			}
			continue
		}
		distinct = append(distinct, id)
	}
	have := truth.IDSetOf(distinct, len(want.Head))
	if have.N == want.N && have.Hash == want.Hash {
		return fails
	}
	msg := fmt.Sprintf("%d distinct ids in %s, want %d", have.N, col, want.N)
	if have.N == want.N {
		msg = fmt.Sprintf("%d ids in %s as expected, but not the expected ids", have.N, col)
	}
	fails = append(fails, msg+"; "+firstIDDiff(distinct, want))
	return fails
}

// firstIDDiff shows the first position, in id order, where got and the
// expected smallest ids differ.
func firstIDDiff(got []int64, want truth.IDSet) string {
	for j, w := range want.Head {
		if j >= len(got) {
			return fmt.Sprintf("first difference at id #%d: got none, want %d", j+1, w)
		}
		if got[j] != w {
			return fmt.Sprintf("first difference at id #%d: got %d, want %d", j+1, got[j], w)
		}
	}
	if int64(len(want.Head)) == want.N && len(got) > len(want.Head) {
		return fmt.Sprintf("first difference at id #%d: got %d, want none", len(want.Head)+1, got[len(want.Head)])
	}
	return fmt.Sprintf("the %d smallest ids agree (%s), the difference is further on", len(want.Head), idList(want.Head))
}

func idList(ids []int64) string {
	const max = 3
	parts := make([]string, 0, max+1)
	for j, id := range ids {
		if j == max {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, strconv.FormatInt(id, 10))
	}
	return strings.Join(parts, ", ")
}
