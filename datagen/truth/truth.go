// Package truth computes the answers a generated dataset gives to its
// truth declarations (counts, samples, inverse refs, aggregates, changes
// since a mark), which checks compare query results with, and follows
// them through committed writes, all without reading any database.
package truth

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
	"github.com/mentat-spec/mentat-spec/datagen/internal/scan"
)

// Truth holds the expected answers of a dataset's truth declarations.
// Its JSON form is stable: maps are written with sorted keys.
type Truth struct {
	Dataset string           `json:"dataset"`
	Seed    uint64           `json:"seed"`
	Stats   datagen.Stats    `json:"stats"`
	Marks   map[string]int64 `json:"marks"`
	// Values maps each declaration name to its answer:
	//   count_by       map[string]int64 (value rendered as text -> count)
	//   count          int64
	//   changed_since  int64
	//   sample         []Entry
	//   inverse        []Entry, each with Refs
	//   sum, avg, min, max   a number, or map[string]number with by
	// and under IDsKey, by name, the IDSet of each count and changed_since
	// truth, and a map[string]IDSet (value -> ids) of each count_by.
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
	Key    string // the sample's key attribute as text ("" when none)
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
	if e.Key != "" {
		m["key"] = e.Key
	}
	if e.Refs != nil {
		m["refs"] = e.Refs
	}
	return json.Marshal(m)
}

// Compute computes every truth declaration of ds, scanning id ranges
// in parallel on workers goroutines (<= 0: GOMAXPROCS). Memory does not
// grow with the entity count: only samples, the refs of inverse samples
// (an inverse sample that is a zipf head gathers many), one accumulator
// per group and the fixed-size id sets of counting truths are kept.
func Compute(ctx context.Context, ds *datagen.Dataset, workers int) (*Truth, error) {
	c, err := compile(ds)
	if err != nil {
		return nil, err
	}
	stats, err := ds.Stats(ctx, workers)
	if err != nil {
		return nil, fmt.Errorf("datagen: truth stats: %w", err)
	}
	t := &Truth{Dataset: ds.Name, Seed: ds.Seed, Stats: stats, Marks: ds.MarkTxs(), Values: map[string]any{}}
	ids := map[string]any{}
	for i := range c.truth {
		tc := &c.truth[i]
		var v, set any
		switch tc.decl.Kind {
		case datagen.TruthCountBy:
			v, set, err = c.countBy(ctx, tc, workers)
		case datagen.TruthCount:
			v, set, err = c.count(ctx, tc, workers)
		case datagen.TruthSample:
			v = c.sampleEntries(tc, ds.Seed)
		case datagen.TruthInverse:
			v, err = c.inverse(ctx, tc, ds.Seed, workers)
		case datagen.TruthChangedSince:
			v, set, err = c.changedSince(ctx, tc, workers)
		case datagen.TruthSum, datagen.TruthAvg, datagen.TruthMin, datagen.TruthMax:
			v, err = c.aggregate(ctx, tc, workers)
		}
		if err != nil {
			return nil, fmt.Errorf("datagen: truth %q: %w", tc.decl.Name, err)
		}
		t.Values[tc.decl.Name] = v
		if set != nil {
			ids[tc.decl.Name] = set
		}
	}
	t.Values[datagen.IDsKey] = ids
	return t, nil
}

// countBy counts entities per current value; a cardinality-many
// attribute (or a path reaching several values) counts each value.
func (c *model) countBy(ctx context.Context, tc *truthComp, workers int) (map[string]int64, map[string]IDSet, error) {
	nw := scan.Workers(workers)
	parts := make([]map[datagen.Value]*idAcc, nw)
	for w := range parts {
		parts[w] = map[datagen.Value]*idAcc{}
	}
	base := c.kinds[tc.kind].base
	err := scan.Chunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		m := parts[w]
		var vals []datagen.Value
		var b pathBuf
		for id := lo; id < hi; id++ {
			if len(tc.filters) > 0 && !c.matches(tc.filters, id, &b) {
				continue
			}
			vals = c.pathValues(&tc.path, id, -1, vals[:0], &b)
			for j, v := range vals {
				if dupBefore(vals, j) {
					continue
				}
				acc := m[v]
				if acc == nil {
					acc = &idAcc{}
					m[v] = acc
				}
				acc.add(base + id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	merged := map[string]*idAcc{}
	for _, m := range parts {
		for v, a := range m {
			k := v.String()
			if merged[k] == nil {
				merged[k] = &idAcc{}
			}
			merged[k].merge(a)
		}
	}
	out, sets := map[string]int64{}, map[string]IDSet{}
	for k, a := range merged {
		out[k], sets[k] = a.n, a.set()
	}
	return out, sets, nil
}

// dupBefore reports whether vals[j] appeared earlier in vals (a path
// through several refs can reach one value twice; it counts once).
func dupBefore(vals []datagen.Value, j int) bool {
	for i := 0; i < j; i++ {
		if vals[i] == vals[j] {
			return true
		}
	}
	return false
}

// count counts entities whose current values satisfy every filter.
func (c *model) count(ctx context.Context, tc *truthComp, workers int) (int64, IDSet, error) {
	nw := scan.Workers(workers)
	parts := make([]idAcc, nw)
	base := c.kinds[tc.kind].base
	err := scan.Chunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		var b pathBuf
		acc := &parts[w]
		for id := lo; id < hi; id++ {
			if c.matches(tc.filters, id, &b) {
				acc.add(base + id)
			}
		}
		return nil
	})
	var total idAcc
	for i := range parts {
		total.merge(&parts[i])
	}
	return total.n, total.set(), err
}

// changedSince counts distinct entities with a datom of the attribute in
// a tx after the mark (their initial assert included).
func (c *model) changedSince(ctx context.Context, tc *truthComp, workers int) (int64, IDSet, error) {
	nw := scan.Workers(workers)
	parts := make([]idAcc, nw)
	a := &c.attrs[tc.attr]
	base := c.kinds[a.kind].base
	err := scan.Chunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		acc := &parts[w]
		for id := lo; id < hi; id++ {
			if c.changedAfter(tc.attr, id, tc.since) {
				acc.add(base + id)
			}
		}
		return nil
	})
	var total idAcc
	for i := range parts {
		total.merge(&parts[i])
	}
	return total.n, total.set(), err
}

// aggAcc accumulates one group of an aggregate. Doubles are summed with
// Neumaier's compensation.
type aggAcc struct {
	n          int64
	isum       int64
	fsum, comp float64
	min, max   datagen.Value
}

func (g *aggAcc) add(v datagen.Value) {
	if g.n == 0 || v.Compare(g.min) < 0 {
		g.min = v
	}
	if g.n == 0 || v.Compare(g.max) > 0 {
		g.max = v
	}
	g.n++
	if v.Class() != datagen.ClassReal {
		g.isum += v.Int
		return
	}
	g.addFloat(v.Float)
}

func (g *aggAcc) addFloat(x float64) {
	t := g.fsum + x
	if math.Abs(g.fsum) >= math.Abs(x) {
		g.comp += (g.fsum - t) + x
	} else {
		g.comp += (x - t) + g.fsum
	}
	g.fsum = t
}

func (g *aggAcc) merge(o *aggAcc) {
	if o.n == 0 {
		return
	}
	if g.n == 0 || o.min.Compare(g.min) < 0 {
		g.min = o.min
	}
	if g.n == 0 || o.max.Compare(g.max) > 0 {
		g.max = o.max
	}
	g.n += o.n
	g.isum += o.isum
	g.addFloat(o.fsum)
	g.comp += o.comp
}

func (g *aggAcc) result(kind datagen.TruthKind, real bool) any {
	if g.n == 0 {
		if kind == datagen.TruthSum {
			return int64(0)
		}
		return nil
	}
	sum := any(g.isum)
	fs := float64(g.isum)
	if real {
		fs = g.fsum + g.comp
		sum = fs
	}
	switch kind {
	case datagen.TruthSum:
		return sum
	case datagen.TruthAvg:
		return fs / float64(g.n)
	case datagen.TruthMin:
		return g.min.Any()
	}
	return g.max.Any()
}

// aggregate computes sum, avg, min or max of a path's values over the
// matching entities, per group of the by path when set. Chunks merge in
// id order, so a double sum is the same for any worker count.
func (c *model) aggregate(ctx context.Context, tc *truthComp, workers int) (any, error) {
	n := c.kinds[tc.kind].count
	chunks := make([]map[string]*aggAcc, (n+scan.Chunk-1)/scan.Chunk)
	err := scan.Chunks(ctx, n, scan.Workers(workers), func(_ int, lo, hi int64) error {
		m := map[string]*aggAcc{}
		var vals, keys []datagen.Value
		var b pathBuf
		for id := lo; id < hi; id++ {
			if len(tc.filters) > 0 && !c.matches(tc.filters, id, &b) {
				continue
			}
			vals = c.pathValues(&tc.path, id, -1, vals[:0], &b)
			if len(vals) == 0 {
				continue
			}
			keys = keys[:0]
			if tc.by != nil {
				keys = c.pathValues(tc.by, id, -1, keys, &b)
			} else {
				keys = append(keys, datagen.Value{})
			}
			for j, k := range keys {
				if dupBefore(keys, j) {
					continue
				}
				ks := k.String()
				g := m[ks]
				if g == nil {
					g = &aggAcc{}
					m[ks] = g
				}
				for _, v := range vals {
					g.add(v)
				}
			}
		}
		chunks[lo/scan.Chunk] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	total := map[string]*aggAcc{}
	for _, m := range chunks {
		for _, k := range sortedKeys(m) {
			if total[k] == nil {
				total[k] = &aggAcc{}
			}
			total[k].merge(m[k])
		}
	}
	real := tc.path.last(c).info.Class == datagen.ClassReal
	if tc.by == nil {
		g := total[""]
		if g == nil {
			g = &aggAcc{}
		}
		return g.result(tc.decl.Kind, real), nil
	}
	out := map[string]any{}
	for k, g := range total {
		out[k] = g.result(tc.decl.Kind, real)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sampleIDs picks n distinct ids of [0, count) by draws (seed, "sample",
// name, j), j = 0, 1, ..., and returns them sorted.
func sampleIDs(seed uint64, name string, n int, count int64) []int64 {
	s := draw.NewStream(seed, "sample", name)
	seen := make(map[int64]bool, n)
	ids := make([]int64, 0, n)
	for j := int64(0); len(ids) < n && int64(len(ids)) < count; j++ {
		id := int64(draw.Below(s.Draw(j, 0, 0), uint64(count)))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// entry builds the entry of id of kind k with the given attribute paths.
func (c *model) entry(k int, id int64, attrs []pathComp, key *pathComp, asOf int64) Entry {
	e := Entry{ID: id, E: c.kinds[k].base + id, Fields: make(map[string]any, len(attrs))}
	var vals []datagen.Value
	var b pathBuf
	for i := range attrs {
		p := &attrs[i]
		vals = c.pathValues(p, id, asOf, vals[:0], &b)
		if p.last(c).info.Many || len(p.hops) > 1 && len(vals) != 1 {
			list := make([]any, len(vals))
			sort.Slice(vals, func(i, j int) bool { return vals[i].Compare(vals[j]) < 0 })
			for i, v := range vals {
				list[i] = v.Any()
			}
			e.Fields[p.name] = list
			continue
		}
		if len(vals) == 0 {
			e.Fields[p.name] = nil
		} else {
			e.Fields[p.name] = vals[0].Any()
		}
	}
	if key != nil {
		if vals = c.pathValues(key, id, asOf, vals[:0], &b); len(vals) > 0 {
			e.Key = vals[0].String()
		}
	}
	return e
}

func (c *model) sampleEntries(tc *truthComp, seed uint64) []Entry {
	ids := sampleIDs(seed, tc.decl.Name, tc.decl.N, c.kinds[tc.kind].count)
	out := make([]Entry, len(ids))
	for i, id := range ids {
		out[i] = c.entry(tc.kind, id, tc.attrs, tc.key, tc.asOf)
	}
	return out
}

// inverse finds, for each sample, the entities whose ref attribute points
// at it (as of the mark, if any).
func (c *model) inverse(ctx context.Context, tc *truthComp, seed uint64, workers int) ([]Entry, error) {
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
	nw := scan.Workers(workers)
	parts := make([][]hit, nw)
	err := scan.Chunks(ctx, c.kinds[tc.refKind].count, nw, func(w int, lo, hi int64) error {
		var vals []datagen.Value
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
			refs[j] = c.entry(tc.refKind, refs[j].ID, tc.refAttrs, nil, tc.asOf)
		}
	}
	return out, nil
}
