// Package answer decodes a query's answer that a store returns as one
// value (the first column of the only row): JSON, an array of arrays or
// of objects, or EDN, a vector, list or set of tuples or maps. The checks
// then read it as rows, as they read any query's.
package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mentat-spec/mentat-spec/engine/edn"
)

// Formats of a query's `answer` attribute.
const (
	Rows = "rows" // the rows as the database returns them (the default)
	JSON = "json"
	EDN  = "edn"
)

// Formats lists the accepted values, for diagnostics.
var Formats = []string{Rows, JSON, EDN}

// Valid reports whether f is one of Formats.
func Valid(f string) bool { return f == Rows || f == JSON || f == EDN }

// Decode turns a result of the one-value form into columns and rows.
// columns names the positions of tuples (nil: "1", "2", ...); maps and
// objects name their own columns, in the order their keys first appear.
// A null value is no rows (PostgreSQL's json_agg over nothing).
func Decode(format string, resultRows [][]any, columns []string) ([]string, [][]any, error) {
	if len(resultRows) != 1 {
		return nil, nil, fmt.Errorf("the answer is one value, the first column of one row; the query returned %d rows", len(resultRows))
	}
	if len(resultRows[0]) == 0 {
		return nil, nil, errors.New("the answer's row has no column")
	}
	var text []byte
	switch v := resultRows[0][0].(type) {
	case nil:
		return columnsOrEmpty(columns), [][]any{}, nil
	case string:
		text = []byte(v)
	case []byte:
		text = v
	default:
		return nil, nil, fmt.Errorf("the answer is a %T, not text", v)
	}
	var items []any
	var err error
	switch format {
	case JSON:
		items, err = jsonItems(text)
	case EDN:
		items, err = ednItems(text)
	default:
		return nil, nil, fmt.Errorf("unknown answer format %q", format)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w; the answer starts %s", err, Head(text))
	}
	cols, rows, err := tabulate(items, columns)
	if err != nil {
		return nil, nil, fmt.Errorf("%w; the answer starts %s", err, Head(text))
	}
	return cols, rows, nil
}

// Head quotes the first bytes of an answer, for a failure's detail.
func Head(b []byte) string {
	const n = 60
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q...", b[:cut])
}

func columnsOrEmpty(c []string) []string {
	if c == nil {
		return []string{}
	}
	return c
}

// record is one row before tabulation: a tuple, or named fields.
type record struct {
	tuple  []any
	names  []string
	values []any
	scalar bool
}

// tabulate makes rows of the items: tuples (by position), records (by
// name) or scalars (one column). Mixing tuples and records is an error.
func tabulate(items []any, columns []string) ([]string, [][]any, error) {
	rows := make([][]any, 0, len(items))
	var named []string
	index := map[string]int{}
	tuples, records := 0, 0
	width := -1
	recs := make([]record, len(items))
	for i, it := range items {
		r := it.(record)
		recs[i] = r
		if r.names != nil || (r.tuple == nil && !r.scalar) {
			records++
			for _, n := range r.names {
				if _, ok := index[n]; !ok {
					index[n] = len(named)
					named = append(named, n)
				}
			}
			continue
		}
		tuples++
		w := len(r.tuple)
		if r.scalar {
			w = 1
		}
		if width >= 0 && w != width {
			return nil, nil, fmt.Errorf("row %d has %d values, row 1 has %d", i+1, w, width)
		}
		width = w
	}
	if tuples > 0 && records > 0 {
		return nil, nil, errors.New("the answer mixes tuples and maps")
	}
	if records > 0 {
		for _, r := range recs {
			row := make([]any, len(named))
			for j, n := range r.names {
				row[index[n]] = r.values[j]
			}
			rows = append(rows, row)
		}
		return named, rows, nil
	}
	if width < 0 {
		return columnsOrEmpty(columns), rows, nil
	}
	cols := columns
	if cols == nil {
		for j := 1; j <= width; j++ {
			cols = append(cols, fmt.Sprint(j))
		}
	} else if len(cols) != width {
		return nil, nil, fmt.Errorf("the tuples have %d values, the query names %d columns (%s)", width, len(cols), strings.Join(cols, ", "))
	}
	for _, r := range recs {
		if r.scalar {
			rows = append(rows, []any{r.tuple[0]})
		} else {
			rows = append(rows, r.tuple)
		}
	}
	return cols, rows, nil
}

// jsonItems reads a JSON array whose elements are arrays, objects (keys
// kept in order) or scalars.
func jsonItems(text []byte) ([]any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, errors.New("not a JSON array")
	}
	items := []any{}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		r, err := jsonRecord(raw)
		if err != nil {
			return nil, fmt.Errorf("row %d: %v", len(items)+1, err)
		}
		items = append(items, r)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not JSON: text after the array")
	}
	return items, nil
}

func jsonRecord(raw json.RawMessage) (record, error) {
	raw = bytes.TrimSpace(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	switch raw[0] {
	case '[':
		var vals []any
		if err := dec.Decode(&vals); err != nil {
			return record{}, err
		}
		for i, v := range vals {
			vals[i] = jsonValue(v)
		}
		return record{tuple: vals}, nil
	case '{':
		var r record
		r.names = []string{}
		if _, err := dec.Token(); err != nil {
			return record{}, err
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return record{}, err
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return record{}, err
			}
			r.names = append(r.names, k.(string))
			r.values = append(r.values, jsonValue(v))
		}
		return r, nil
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return record{}, err
	}
	return record{tuple: []any{jsonValue(v)}, scalar: true}, nil
}

// jsonValue makes a JSON value a check value: whole numbers int64, other
// numbers float64, nested arrays and objects their JSON text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return v
}

// ednItems reads an EDN vector, list or set whose elements are tuples
// (vectors or lists), maps or scalars.
func ednItems(text []byte) ([]any, error) {
	v, err := edn.Decode(text)
	if err != nil {
		return nil, err
	}
	var elems []any
	switch x := v.(type) {
	case []any:
		elems = x
	case edn.List:
		elems = x
	case edn.Set:
		elems = x
	default:
		return nil, fmt.Errorf("not an EDN vector, list or set but %s", ednKind(v))
	}
	items := make([]any, 0, len(elems))
	for _, e := range elems {
		switch x := e.(type) {
		case []any:
			items = append(items, record{tuple: ednValues(x)})
		case edn.List:
			items = append(items, record{tuple: ednValues(x)})
		case edn.Map:
			r := record{names: []string{}}
			for _, en := range x {
				r.names = append(r.names, fmt.Sprint(ednValue(en.Key)))
				r.values = append(r.values, ednValue(en.Value))
			}
			items = append(items, r)
		default:
			items = append(items, record{tuple: []any{ednValue(x)}, scalar: true})
		}
	}
	return items, nil
}

func ednValues(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = ednValue(v)
	}
	return out
}

// ednValue makes an EDN value a check value: keywords and symbols their
// name (":open" is "open", as the dataset writes the value), big integers
// their digits, instants times, tagged values their value, collections
// their text.
func ednValue(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, time.Time:
		return x
	case edn.Keyword:
		return string(x)
	case edn.Symbol:
		return string(x)
	case *big.Int:
		return x.String()
	case edn.Tagged:
		return ednValue(x.Value)
	}
	return fmt.Sprint(v)
}

func ednKind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case edn.Map:
		return "a map"
	case string:
		return "a string"
	case edn.Keyword:
		return "a keyword"
	case int64, float64, *big.Int:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}
