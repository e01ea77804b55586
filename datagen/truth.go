package datagen

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// Truth holds the expected answers of a dataset's truth declarations.
// Its JSON form is stable: maps are written with sorted keys.
type Truth struct {
	Dataset string           `json:"dataset"`
	Seed    uint64           `json:"seed"`
	Stats   Stats            `json:"stats"`
	Marks   map[string]int64 `json:"marks"`
	// Values maps each declaration name to its answer:
	//   count_by       map[string]int64 (value rendered as text -> count)
	//   count          int64
	//   changed_since  int64
	//   sample         []Entry
	//   inverse        []Entry, each with Refs
	Values map[string]any `json:"values"`
}

// Entry is one entity of a sample or inverse truth. Fields maps attribute
// idents to values as Value.Any gives them (string, bool, int64 or
// float64), nil for a cardinality-one attribute without a value, and a
// []any sorted by value for cardinality many. In JSON an entry is one
// flat object: {"e": ..., "id": ..., "<ident>": ..., "refs": [...]}.
type Entry struct {
	ID     int64
	E      int64
	Fields map[string]any
	Refs   []Entry // inverse only (never nil there): referring entities sorted by E
}

// MarshalJSON writes the flat object form with sorted keys.
func (e Entry) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Fields)+3)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["id"] = e.ID
	m["e"] = e.E
	if e.Refs != nil {
		m["refs"] = e.Refs
	}
	return json.Marshal(m)
}

type truthComp struct {
	decl     TruthDecl
	kind     int // the kind counted, scanned or sampled
	attr     int // count_by, changed_since: the attribute; inverse: the ref attribute
	filters  []filterComp
	attrs    []int
	refKind  int // inverse: the kind holding the ref attribute
	refAttrs []int
	asOf     int64 // tx id; -1 = current
	since    int64
}

type filterComp struct {
	attr  int
	op    string
	v     Value
	class Class
}

// reservedFields are the entry keys attributes must not shadow.
var reservedFields = map[string]bool{"id": true, "e": true, "refs": true}

func compileTruth(ds *Dataset, c *compiled, el *errList) {
	seen := map[string]bool{}
	for _, d := range ds.Truth {
		bad := func(format string, args ...any) {
			el.add("truth %q: "+format, append([]any{d.Name}, args...)...)
		}
		if d.Name == "" {
			bad("empty name")
			continue
		}
		if seen[d.Name] {
			bad("declared twice")
			continue
		}
		seen[d.Name] = true
		tc := truthComp{decl: d, asOf: -1}
		ok := true
		entity := func() bool {
			k, found := c.byKind[d.Entity]
			if !found {
				bad("entity %q is not an entity", d.Entity)
				return false
			}
			tc.kind = k
			return true
		}
		attrOf := func(ident string, k int, what string) (int, bool) {
			ai, found := c.byIdent[ident]
			if !found {
				bad("%s %q is not an attribute", what, ident)
				return 0, false
			}
			if k >= 0 && c.attrs[ai].kind != k {
				bad("%s %q belongs to entity %q, not %q", what, ident, c.attrs[ai].info.Entity, c.kinds[k].name)
				return 0, false
			}
			return ai, true
		}
		attrList := func(idents []string, k int, what string) []int {
			var out []int
			for _, id := range idents {
				if reservedFields[id] {
					bad("%s %q clashes with a reserved key", what, id)
					ok = false
					continue
				}
				if ai, found := attrOf(id, k, what); found {
					out = append(out, ai)
				} else {
					ok = false
				}
			}
			return out
		}
		mark := func(name, what string) int64 {
			tx, found := c.marks[name]
			if !found {
				bad("%s %q is not a mark", what, name)
				ok = false
			}
			return tx
		}
		samples := func() {
			if !entity() {
				ok = false
				return
			}
			if n := c.kinds[tc.kind].count; d.N < 1 || int64(d.N) > n {
				bad("n %d must be in [1, %d] (the %q count)", d.N, n, d.Entity)
				ok = false
			}
			tc.attrs = attrList(d.Attrs, tc.kind, "attr")
			if d.AsOf != "" {
				tc.asOf = mark(d.AsOf, "as_of")
			}
		}
		switch d.Kind {
		case TruthCountBy:
			ai, found := attrOf(d.Attr, -1, "attr")
			if !found {
				ok = false
				break
			}
			tc.attr, tc.kind = ai, c.attrs[ai].kind
			if d.Entity != "" && d.Entity != c.attrs[ai].info.Entity {
				bad("attr %q belongs to entity %q, not %q", d.Attr, c.attrs[ai].info.Entity, d.Entity)
				ok = false
			}
		case TruthCount:
			if !entity() {
				ok = false
				break
			}
			for _, f := range d.Where {
				ai, found := attrOf(f.Attr, tc.kind, "filter attr")
				if !found {
					ok = false
					continue
				}
				switch f.Op {
				case "eq", "ne", "lt", "le", "gt", "ge":
				default:
					bad("filter on %q: unknown op %q (eq ne lt le gt ge)", f.Attr, f.Op)
					ok = false
				}
				v, err := ParseValue(c.attrs[ai].info.Type, f.Value)
				if err != nil {
					bad("filter on %q: %v", f.Attr, err)
					ok = false
				}
				tc.filters = append(tc.filters, filterComp{attr: ai, op: f.Op, v: v, class: c.attrs[ai].info.Class})
			}
		case TruthSample:
			samples()
		case TruthInverse:
			samples()
			ai, found := attrOf(d.Inverse, -1, "inverse")
			if !found {
				ok = false
				break
			}
			a := &c.attrs[ai]
			switch {
			case a.info.Type != TypeRef:
				bad("inverse %q is not a ref attribute", d.Inverse)
				ok = false
			case a.info.Gen.Target != d.Entity:
				bad("inverse %q points at %q, not %q", d.Inverse, a.info.Gen.Target, d.Entity)
				ok = false
			}
			tc.attr, tc.refKind = ai, a.kind
			tc.refAttrs = attrList(d.RefAttrs, a.kind, "ref attr")
		case TruthChangedSince:
			ai, found := attrOf(d.Attr, -1, "attr")
			if !found {
				ok = false
			}
			tc.attr = ai
			if found {
				tc.kind = c.attrs[ai].kind
			}
			tc.since = mark(d.Since, "since")
		default:
			bad("unknown kind %q", d.Kind)
			ok = false
		}
		if ok {
			c.truth = append(c.truth, tc)
		}
	}
}

// ComputeTruth computes every truth declaration of ds, scanning id ranges
// in parallel on workers goroutines (<= 0: GOMAXPROCS). Memory does not
// grow with the entity count: only samples and the refs of inverse
// samples are kept (an inverse sample that is a zipf head gathers many).
func ComputeTruth(ctx context.Context, ds *Dataset, workers int) (*Truth, error) {
	c, err := ds.compiled()
	if err != nil {
		return nil, err
	}
	stats, err := ds.Stats(ctx, workers)
	if err != nil {
		return nil, fmt.Errorf("datagen: truth stats: %w", err)
	}
	t := &Truth{Dataset: ds.Name, Seed: ds.Seed, Stats: stats, Marks: ds.MarkTxs(), Values: map[string]any{}}
	for i := range c.truth {
		tc := &c.truth[i]
		var v any
		switch tc.decl.Kind {
		case TruthCountBy:
			v, err = c.countBy(ctx, tc, workers)
		case TruthCount:
			v, err = c.count(ctx, tc, workers)
		case TruthSample:
			v = c.sampleEntries(tc, ds.Seed)
		case TruthInverse:
			v, err = c.inverse(ctx, tc, ds.Seed, workers)
		case TruthChangedSince:
			v, err = c.changedSince(ctx, tc, workers)
		}
		if err != nil {
			return nil, fmt.Errorf("datagen: truth %q: %w", tc.decl.Name, err)
		}
		t.Values[tc.decl.Name] = v
	}
	return t, nil
}

// countBy counts entities per current value; a cardinality-many
// attribute counts each value occurrence.
func (c *compiled) countBy(ctx context.Context, tc *truthComp, workers int) (map[string]int64, error) {
	nw := workerCount(workers)
	parts := make([]map[Value]int64, nw)
	for w := range parts {
		parts[w] = map[Value]int64{}
	}
	err := forChunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		m := parts[w]
		var vals []Value
		var scratch []int64
		for id := lo; id < hi; id++ {
			vals, scratch = c.valuesAsOf(tc.attr, id, -1, vals[:0], scratch)
			for _, v := range vals {
				m[v]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, m := range parts {
		for v, n := range m {
			out[v.String()] += n
		}
	}
	return out, nil
}

// count counts entities whose current values satisfy every filter; a
// filter on a cardinality-many attribute holds when any value satisfies
// it, and never for an attribute without a value.
func (c *compiled) count(ctx context.Context, tc *truthComp, workers int) (int64, error) {
	nw := workerCount(workers)
	parts := make([]int64, nw)
	err := forChunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		var vals []Value
		var scratch []int64
		var n int64
	ids:
		for id := lo; id < hi; id++ {
			for i := range tc.filters {
				f := &tc.filters[i]
				vals, scratch = c.valuesAsOf(f.attr, id, -1, vals[:0], scratch)
				if !anyMatch(vals, f) {
					continue ids
				}
			}
			n++
		}
		parts[w] += n
		return nil
	})
	var total int64
	for _, n := range parts {
		total += n
	}
	return total, err
}

func anyMatch(vals []Value, f *filterComp) bool {
	for _, v := range vals {
		r := compareAs(f.class, v, f.v)
		var ok bool
		switch f.op {
		case "eq":
			ok = r == 0
		case "ne":
			ok = r != 0
		case "lt":
			ok = r < 0
		case "le":
			ok = r <= 0
		case "gt":
			ok = r > 0
		case "ge":
			ok = r >= 0
		}
		if ok {
			return true
		}
	}
	return false
}

// changedSince counts distinct entities with a datom of the attribute in
// a tx after the mark (their initial assert included).
func (c *compiled) changedSince(ctx context.Context, tc *truthComp, workers int) (int64, error) {
	nw := workerCount(workers)
	parts := make([]int64, nw)
	a := &c.attrs[tc.attr]
	err := forChunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		var n int64
		for id := lo; id < hi; id++ {
			if TxBase+c.initialTx(a.kind, id) > tc.since {
				n++
				continue
			}
			for _, hi := range a.hists {
				h := &c.hists[hi]
				if h.selected(id) && TxBase+c.histTx(h, id) > tc.since {
					n++
					break
				}
			}
		}
		parts[w] += n
		return nil
	})
	var total int64
	for _, n := range parts {
		total += n
	}
	return total, err
}

// sampleIDs picks n distinct ids of [0, count) by draws (seed, "sample",
// name, j), j = 0, 1, ..., and returns them sorted.
func sampleIDs(seed uint64, name string, n int, count int64) []int64 {
	s := newStream(seed, "sample", name)
	seen := make(map[int64]bool, n)
	ids := make([]int64, 0, n)
	for j := int64(0); len(ids) < n && int64(len(ids)) < count; j++ {
		id := int64(below(s.draw(j, 0, 0), uint64(count)))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// entry builds the entry of id of kind k with the given attributes.
func (c *compiled) entry(k int, id int64, attrs []int, asOf int64) Entry {
	e := Entry{ID: id, E: c.kinds[k].base + id, Fields: make(map[string]any, len(attrs))}
	var vals []Value
	var scratch []int64
	for _, ai := range attrs {
		a := &c.attrs[ai]
		vals, scratch = c.valuesAsOf(ai, id, asOf, vals[:0], scratch)
		if a.info.Many {
			list := make([]any, len(vals))
			sort.Slice(vals, func(i, j int) bool { return vals[i].compare(vals[j]) < 0 })
			for i, v := range vals {
				list[i] = v.Any()
			}
			e.Fields[a.info.Ident] = list
			continue
		}
		if len(vals) == 0 {
			e.Fields[a.info.Ident] = nil
		} else {
			e.Fields[a.info.Ident] = vals[0].Any()
		}
	}
	return e
}

func (c *compiled) sampleEntries(tc *truthComp, seed uint64) []Entry {
	ids := sampleIDs(seed, tc.decl.Name, tc.decl.N, c.kinds[tc.kind].count)
	out := make([]Entry, len(ids))
	for i, id := range ids {
		out[i] = c.entry(tc.kind, id, tc.attrs, tc.asOf)
	}
	return out
}

// inverse finds, for each sample, the entities whose ref attribute points
// at it (as of the mark, if any).
func (c *compiled) inverse(ctx context.Context, tc *truthComp, seed uint64, workers int) ([]Entry, error) {
	out := c.sampleEntries(tc, seed)
	index := make(map[int64]int, len(out)) // sample entity id -> position
	for i := range out {
		index[out[i].E] = i
		out[i].Refs = []Entry{}
	}
	type hit struct {
		sample int
		id     int64
	}
	nw := workerCount(workers)
	parts := make([][]hit, nw)
	err := forChunks(ctx, c.kinds[tc.refKind].count, nw, func(w int, lo, hi int64) error {
		var vals []Value
		var scratch []int64
		for id := lo; id < hi; id++ {
			vals, scratch = c.valuesAsOf(tc.attr, id, tc.asOf, vals[:0], scratch)
			for _, v := range vals {
				if s, ok := index[v.Int]; ok {
					parts[w] = append(parts[w], hit{s, id})
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		for _, h := range p {
			out[h.sample].Refs = append(out[h.sample].Refs, Entry{ID: h.id})
		}
	}
	for i := range out {
		refs := out[i].Refs
		sort.Slice(refs, func(a, b int) bool { return refs[a].ID < refs[b].ID })
		for j := range refs {
			refs[j] = c.entry(tc.refKind, refs[j].ID, tc.refAttrs, tc.asOf)
		}
	}
	return out, nil
}
