package truth_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

// This file recomputes the truth from the written CSV files alone, with
// none of the generator's code, and compares it with truth.Compute.

type csvAttr struct {
	id     int
	ident  string
	entity string
	typ    string
	many   bool
}

type csvDatom struct {
	e, tx int64
	a     int
	v     string
	added bool
}

type ea struct {
	e int64
	a int
}

type replica struct {
	attrs   map[int]csvAttr
	byIdent map[string]csvAttr
	log     []csvDatom // in tx order, retracts before asserts within a tx
	rows    map[string]int64
	txRows  [][]string
}

func readCSV(t *testing.T, r io.Reader) [][]string {
	t.Helper()
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func loadReplica(t *testing.T, dir string) *replica {
	t.Helper()
	r := &replica{attrs: map[int]csvAttr{}, byIdent: map[string]csvAttr{}, rows: map[string]int64{}}
	f, err := os.Open(filepath.Join(dir, "schema.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, rec := range readCSV(t, f) {
		if i == 0 {
			continue
		}
		id, _ := strconv.Atoi(rec[0])
		a := csvAttr{id: id, ident: rec[1], entity: rec[2], typ: rec[3], many: rec[4] == "many"}
		r.attrs[id], r.byIdent[a.ident] = a, a
	}
	for _, cl := range datagen.ClassNames {
		for _, rec := range readCSV(t, bytes.NewReader(datagentest.Concat(t, dir, "datoms-"+cl+"-*.csv"))) {
			if len(rec) != 5 {
				t.Fatalf("%s row %v: want 5 fields", cl, rec)
			}
			e, _ := strconv.ParseInt(rec[0], 10, 64)
			a, _ := strconv.Atoi(rec[1])
			tx, _ := strconv.ParseInt(rec[3], 10, 64)
			r.log = append(r.log, csvDatom{e: e, a: a, v: rec[2], tx: tx, added: rec[4] == "1"})
			r.rows[cl]++
		}
	}
	sort.SliceStable(r.log, func(i, j int) bool {
		x, y := r.log[i], r.log[j]
		if x.tx != y.tx {
			return x.tx < y.tx
		}
		return !x.added && y.added
	})
	tf, err := os.Open(filepath.Join(dir, "tx.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	r.txRows = readCSV(t, tf)[1:]
	return r
}

// state applies the log up to tx id asOf (< 0: all).
func (r *replica) state(t *testing.T, asOf int64) map[ea]map[string]bool {
	st := map[ea]map[string]bool{}
	for _, d := range r.log {
		if asOf >= 0 && d.tx > asOf {
			break
		}
		k := ea{d.e, d.a}
		if d.added {
			if st[k] == nil {
				st[k] = map[string]bool{}
			}
			if st[k][d.v] {
				t.Errorf("e %d a %d: %q asserted twice", d.e, d.a, d.v)
			}
			st[k][d.v] = true
			if !r.attrs[d.a].many && len(st[k]) > 1 {
				t.Errorf("e %d a %d: cardinality one with %d values at tx %d", d.e, d.a, len(st[k]), d.tx)
			}
		} else {
			if !st[k][d.v] {
				t.Errorf("e %d a %d: retract of %q, which is not asserted", d.e, d.a, d.v)
			}
			delete(st[k], d.v)
		}
	}
	return st
}

// jsonValue converts a CSV value to what truth JSON holds.
func (a csvAttr) jsonValue(s string) any {
	switch a.typ {
	case "string", "keyword":
		return s
	case "boolean":
		return s == "1"
	case "double":
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// text renders a CSV value as count_by keys do.
func (a csvAttr) text(s string) string {
	if a.typ == "boolean" {
		return strconv.FormatBool(s == "1")
	}
	return s
}

func (a csvAttr) less(x, y string) bool {
	switch a.typ {
	case "string", "keyword":
		return x < y
	case "double":
		f, _ := strconv.ParseFloat(x, 64)
		g, _ := strconv.ParseFloat(y, 64)
		return f < g
	}
	m, _ := strconv.ParseInt(x, 10, 64)
	n, _ := strconv.ParseInt(y, 10, 64)
	return m < n
}

func (a csvAttr) sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return a.less(out[i], out[j]) })
	return out
}

// filterHolds evaluates a Filter on a CSV value, parsing the filter's
// value by hand.
func (a csvAttr) filterHolds(t *testing.T, v string, f datagen.Filter) bool {
	var c int
	switch a.typ {
	case "string", "keyword":
		c = strings.Compare(v, f.Value)
	case "double":
		x, _ := strconv.ParseFloat(v, 64)
		y, err := strconv.ParseFloat(f.Value, 64)
		if err != nil {
			t.Fatal(err)
		}
		c = cmpInt(x, y)
	default:
		x, _ := strconv.ParseInt(v, 10, 64)
		want := f.Value
		switch {
		case a.typ == "boolean" && want == "true":
			want = "1"
		case a.typ == "boolean":
			want = "0"
		case a.typ == "instant" && strings.Contains(want, "T"):
			want = strconv.FormatInt(datagentest.Ms(want), 10)
		}
		y, err := strconv.ParseInt(want, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		c = cmpInt(x, y)
	}
	switch f.Op {
	case "eq":
		return c == 0
	case "ne":
		return c != 0
	case "lt":
		return c < 0
	case "le":
		return c <= 0
	case "gt":
		return c > 0
	case "ge":
		return c >= 0
	}
	t.Fatalf("op %q", f.Op)
	return false
}

func cmpInt[T int64 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// normalize round-trips v through JSON so Go values and decoded JSON
// compare equal.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTruthMatchesFiles(t *testing.T) {
	for _, extra := range []bool{false, true} {
		t.Run(fmt.Sprintf("extra=%v", extra), func(t *testing.T) {
			ds := datagentest.Finished(t, datagentest.ScaleXS, extra)
			dir := writeTo(t, ds, 3, true)
			r := loadReplica(t, dir)
			raw, err := os.ReadFile(filepath.Join(dir, "truth.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(raw, []byte("}\n")) {
				t.Error("truth.json lacks a trailing newline")
			}
			var fromFile map[string]any
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			if err := d.Decode(&fromFile); err != nil {
				t.Fatal(err)
			}
			tr, err := truth.Compute(context.Background(), ds, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := normalize(t, tr); !reflect.DeepEqual(got, any(fromFile)) {
				t.Error("truth.json differs from truth.Compute")
			}
			checkStats(t, ds, r, tr.Stats)
			checkValueFunc(t, ds, r)
			values := fromFile["values"].(map[string]any)
			marks := map[string]int64{}
			for k, v := range fromFile["marks"].(map[string]any) {
				marks[k], _ = v.(json.Number).Int64()
			}
			counts := map[string]int64{}
			for k, v := range fromFile["stats"].(map[string]any)["entities"].(map[string]any) {
				counts[k], _ = v.(json.Number).Int64()
			}
			entityBase := map[string]int64{}
			for k, en := range ds.Entities {
				entityBase[en.Name] = int64(k+1) * 1_000_000_000_000
			}
			current := r.state(t, -1)
			for _, decl := range ds.Truth {
				var want any
				st := current
				switch decl.Kind {
				case datagen.TruthCountBy:
					a := r.byIdent[decl.Attr]
					m := map[string]int64{}
					for k, vals := range st {
						if k.a == a.id {
							for v := range vals {
								m[a.text(v)]++
							}
						}
					}
					want = m
				case datagen.TruthCount:
					var n int64
					var matched []int64
					base := entityBase[decl.Entity]
				ids:
					for id := int64(0); id < counts[decl.Entity]; id++ {
						for _, f := range decl.Where {
							a := r.byIdent[f.Attr]
							ok := false
							for v := range st[ea{base + id, a.id}] {
								ok = ok || a.filterHolds(t, v, f)
							}
							if !ok {
								continue ids
							}
						}
						n++
						matched = append(matched, base+id)
					}
					want = n
					checkIDs(t, values, decl.Name, matched)
				case datagen.TruthChangedSince:
					a := r.byIdent[decl.Attr]
					es := map[int64]bool{}
					for _, d := range r.log {
						if d.a == a.id && d.tx > marks[decl.Since] {
							es[d.e] = true
						}
					}
					want = int64(len(es))
					var changed []int64
					for e := range es {
						changed = append(changed, e)
					}
					checkIDs(t, values, decl.Name, changed)
				case datagen.TruthSample, datagen.TruthInverse:
					asOf := int64(-1)
					if decl.AsOf != "" {
						asOf = marks[decl.AsOf]
						st = r.state(t, asOf)
					}
					got := values[decl.Name].([]any)
					if len(got) != decl.N {
						t.Fatalf("%s: %d samples, want %d", decl.Name, len(got), decl.N)
					}
					var samples []map[string]any
					prev := int64(-1)
					for _, g := range got {
						id, _ := g.(map[string]any)["id"].(json.Number).Int64()
						if id <= prev || id >= counts[decl.Entity] {
							t.Fatalf("%s: sample ids not sorted, distinct and in range: %v", decl.Name, got)
						}
						prev = id
						s := r.entry(st, entityBase[decl.Entity], id, decl.Attrs)
						for _, an := range decl.Attrs {
							if a, ok := ds.Attr(an); ok && a.Unique {
								s["key"] = s[an] // a unique attribute labels the sample
								break
							}
						}
						samples = append(samples, s)
					}
					if decl.Kind == datagen.TruthInverse {
						a := r.byIdent[decl.Inverse]
						refBase := entityBase[a.entity]
						for _, s := range samples {
							refs := []map[string]any{}
							for id := int64(0); id < counts[a.entity]; id++ {
								if st[ea{refBase + id, a.id}][strconv.FormatInt(s["e"].(int64), 10)] {
									refs = append(refs, r.entry(st, refBase, id, decl.RefAttrs))
								}
							}
							s["refs"] = refs
						}
					}
					want = samples
				}
				if g, w := values[decl.Name], normalize(t, want); !reflect.DeepEqual(g, w) {
					t.Errorf("truth %q:\n got %.600v\nwant %.600v", decl.Name, g, w)
				}
			}
			// Sanity of the answers themselves, beyond agreement.
			var sum int64
			for _, v := range values["state_counts"].(map[string]any) {
				n, _ := v.(json.Number).Int64()
				sum += n
			}
			if sum != datagentest.ScaleXS.Issues {
				t.Errorf("state counts sum to %d, want %d", sum, datagentest.ScaleXS.Issues)
			}
			if n, _ := values["changed_since"].(json.Number).Int64(); !extra && (n < 200 || n > 450) {
				t.Errorf("changed_since = %d, want about 5%% of 6500", n)
			}
		})
	}
}

// entry renders an entity's attribute values from the replica.
func (r *replica) entry(st map[ea]map[string]bool, base, id int64, attrs []string) map[string]any {
	m := map[string]any{"id": id, "e": base + id}
	for _, ident := range attrs {
		a := r.byIdent[ident]
		vals := a.sorted(st[ea{base + id, a.id}])
		if a.many {
			list := []any{}
			for _, v := range vals {
				list = append(list, a.jsonValue(v))
			}
			m[ident] = list
			continue
		}
		if len(vals) == 0 {
			m[ident] = nil
		} else {
			m[ident] = a.jsonValue(vals[0])
		}
	}
	return m
}

func checkStats(t *testing.T, ds *datagen.Dataset, r *replica, st datagen.Stats) {
	t.Helper()
	for _, cl := range datagen.ClassNames {
		if r.rows[cl] != st.ClassDatoms[cl] {
			t.Errorf("class %s: %d CSV rows, stats %d", cl, r.rows[cl], st.ClassDatoms[cl])
		}
	}
	if int64(len(r.log)) != st.Datoms {
		t.Errorf("%d CSV rows, stats %d datoms", len(r.log), st.Datoms)
	}
	if int64(len(r.txRows)) != st.Txs || st.Txs != ds.TxCount() {
		t.Errorf("%d tx.csv rows, stats %d txs, TxCount %d", len(r.txRows), st.Txs, ds.TxCount())
	}
	perPhase := map[string]int64{}
	for i, rec := range r.txRows {
		idx, _ := strconv.ParseInt(rec[0], 10, 64)
		tx, _ := strconv.ParseInt(rec[1], 10, 64)
		if idx != int64(i) || tx != datagen.TxBase+idx {
			t.Fatalf("tx.csv row %d: %v", i, rec)
		}
		n, _ := strconv.ParseInt(rec[4], 10, 64)
		perPhase[rec[2]] += n
	}
	if perPhase["initial"] != st.InitialDatoms {
		t.Errorf("initial: tx.csv %d datoms, stats %d", perPhase["initial"], st.InitialDatoms)
	}
	for h, n := range st.HistoryDatoms {
		if perPhase[h] != n {
			t.Errorf("history %s: tx.csv %d datoms, stats %d", h, perPhase[h], n)
		}
	}
}

// checkValueFunc compares ValueFunc with the replica for every entity and
// attribute, currently and as of every mark.
func checkValueFunc(t *testing.T, ds *datagen.Dataset, r *replica) {
	t.Helper()
	asOfs := []int64{-1, datagen.TxBase} // TxBase: only the first tx has happened
	for _, tx := range ds.MarkTxs() {
		asOfs = append(asOfs, tx)
	}
	for _, asOf := range asOfs {
		st := r.state(t, asOf)
		for _, a := range ds.Attrs() {
			fn, err := ds.ValueFunc(a.Entity, a.Ident)
			if err != nil {
				t.Fatal(err)
			}
			ca := r.byIdent[a.Ident]
			var vals []datagen.Value
			for id := int64(-1); id <= ds.Count(a.Entity); id++ {
				vals = fn(id, asOf, vals[:0])
				var got []string
				for _, v := range vals {
					s := v.String()
					if a.Type == datagen.TypeBoolean {
						s = map[bool]string{true: "1", false: "0"}[v.Int != 0]
					}
					got = append(got, s)
				}
				e, _ := ds.EntityID(a.Entity, id)
				want := ca.sorted(st[ea{e, int(a.ID)}])
				// Id Count is the first an insert creates: current values
				// only, and only for a kind that can grow.
				inserted := id == ds.Count(a.Entity) && asOf < 0 && ds.InsertProblem(a.Entity) == ""
				if (id < 0 || id == ds.Count(a.Entity) && !inserted) && len(got) != 0 {
					t.Fatalf("%s id %d out of range has values %v", a.Ident, id, got)
				}
				if id >= 0 && id < ds.Count(a.Entity) && strings.Join(got, "|") != strings.Join(want, "|") {
					t.Fatalf("%s id %d as of %d: ValueFunc %q, files %q", a.Ident, id, asOf, got, want)
				}
			}
		}
	}
	if _, err := ds.ValueFunc("user", "issue/state"); err == nil {
		t.Error("ValueFunc with the wrong kind: no error")
	}
}

// checkIDs compares a counting truth's id set with the ids the replica
// of the written files found.
func checkIDs(t *testing.T, values map[string]any, name string, ids []int64) {
	t.Helper()
	b, err := json.Marshal(truth.IDSetOf(ids, truth.IDHeadLen))
	if err != nil {
		t.Fatal(err)
	}
	var want any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := values[datagen.IDsKey].(map[string]any)[name]; !reflect.DeepEqual(got, want) {
		t.Errorf("truth %q ids:\n got %v\nwant %v", name, got, want)
	}
}
