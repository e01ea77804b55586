package datagen

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
	"github.com/mentat-spec/mentat-spec/datagen/internal/scan"
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

type truthComp struct {
	decl     TruthDecl
	kind     int       // the kind counted, scanned or sampled
	attr     int       // changed_since: the attribute; inverse: the ref attribute
	path     pathComp  // count_by, aggregates: the attribute path
	by       *pathComp // aggregates: the grouping path
	filters  []filterComp
	attrs    []pathComp
	key      *pathComp // sample, inverse: labels each entry
	refKind  int       // inverse: the kind holding the ref attribute
	refAttrs []pathComp
	asOf     int64 // tx id; -1 = current
	since    int64
}

// pathComp is an attribute path: hops[0] belongs to kind, every hop but
// the last is a ref whose target kind holds the next.
type pathComp struct {
	name string
	kind int
	hops []int
}

func (p *pathComp) last(c *compiled) *attrComp { return &c.attrs[p.hops[len(p.hops)-1]] }

type filterComp struct {
	path pathComp
	op   string
	v    Value
	vs   []Value
	any  []filterComp
}

// reservedFields are the entry keys attributes must not shadow.
var reservedFields = map[string]bool{"id": true, "e": true, "refs": true, "key": true}

// resolvePath compiles an attribute path rooted at kind k (< 0: any).
func (c *compiled) resolvePath(s string, k int) (pathComp, error) {
	var parts []string
	if _, whole := c.byIdent[s]; whole {
		parts = []string{s}
	} else {
		parts = strings.Split(s, PathSep)
	}
	p := pathComp{name: s, kind: k}
	for i, id := range parts {
		ai, found := c.byIdent[id]
		if !found {
			if len(parts) == 1 {
				return p, fmt.Errorf("%q is not an attribute", id)
			}
			return p, fmt.Errorf("path %q: %q is not an attribute", s, id)
		}
		a := &c.attrs[ai]
		if i == 0 {
			if k >= 0 && a.kind != k {
				return p, fmt.Errorf("%q belongs to entity %q, not %q", id, a.info.Entity, c.kinds[k].name)
			}
			p.kind = a.kind
		} else {
			prev := &c.attrs[p.hops[i-1]]
			if prev.target < 0 {
				return p, fmt.Errorf("path %q: %q is not a ref, so it cannot be followed", s, prev.info.Ident)
			}
			if a.kind != prev.target {
				return p, fmt.Errorf("path %q: %q refers to %q, which has no attribute %q", s, prev.info.Ident, c.kinds[prev.target].name, id)
			}
		}
		p.hops = append(p.hops, ai)
	}
	return p, nil
}

// pathBuf holds the scratch slices of path evaluation.
type pathBuf struct {
	ids, next []int64
	vals, out []Value
	scratch   []int64
}

// pathValues appends the values the path reaches from id (as of asOf).
func (c *compiled) pathValues(p *pathComp, id, asOf int64, dst []Value, b *pathBuf) []Value {
	if len(p.hops) == 1 {
		dst, b.scratch = c.valuesAsOf(p.hops[0], id, asOf, dst, b.scratch)
		return dst
	}
	b.ids = append(b.ids[:0], id)
	for i, ai := range p.hops {
		last := i == len(p.hops)-1
		b.next = b.next[:0]
		for _, x := range b.ids {
			b.vals, b.scratch = c.valuesAsOf(ai, x, asOf, b.vals[:0], b.scratch)
			if last {
				dst = append(dst, b.vals...)
				continue
			}
			base := c.kinds[c.attrs[ai].target].base
			for _, v := range b.vals {
				b.next = append(b.next, v.Int-base)
			}
		}
		b.ids, b.next = b.next, b.ids
	}
	return dst
}

// matches reports whether id satisfies every filter.
func (c *compiled) matches(fs []filterComp, id int64, b *pathBuf) bool {
	for i := range fs {
		if !c.match(&fs[i], id, b) {
			return false
		}
	}
	return true
}

// match: a filter on a cardinality-many attribute (or a path reaching
// several values) holds when any value satisfies it, and never for an
// attribute without a value.
func (c *compiled) match(f *filterComp, id int64, b *pathBuf) bool {
	if f.op == "or" {
		for i := range f.any {
			if c.match(&f.any[i], id, b) {
				return true
			}
		}
		return false
	}
	b.out = c.pathValues(&f.path, id, -1, b.out[:0], b)
	cl := f.path.last(c).info.Class
	for _, v := range b.out {
		if matchOne(cl, f, v) {
			return true
		}
	}
	return false
}

func matchOne(cl Class, f *filterComp, v Value) bool {
	switch f.op {
	case "between":
		return compareAs(cl, v, f.vs[0]) >= 0 && compareAs(cl, v, f.vs[1]) <= 0
	case "in":
		for _, w := range f.vs {
			if compareAs(cl, v, w) == 0 {
				return true
			}
		}
		return false
	}
	r := compareAs(cl, v, f.v)
	switch f.op {
	case "eq":
		return r == 0
	case "ne":
		return r != 0
	case "lt":
		return r < 0
	case "le":
		return r <= 0
	case "gt":
		return r > 0
	case "ge":
		return r >= 0
	}
	return false
}

func compileFilter(c *compiled, f Filter, k int) (filterComp, []string) {
	fc := filterComp{op: f.Op}
	var errs []string
	if f.Op == "or" {
		if len(f.Any) < 2 {
			errs = append(errs, "filter or: needs at least two filters")
		}
		for _, sub := range f.Any {
			sc, e := compileFilter(c, sub, k)
			fc.any = append(fc.any, sc)
			errs = append(errs, e...)
		}
		return fc, errs
	}
	p, err := c.resolvePath(f.Attr, k)
	if err != nil {
		return fc, []string{fmt.Sprintf("filter attr %s", err)}
	}
	fc.path = p
	t := p.last(c).info.Type
	parse := func(s string) Value {
		v, err := ParseValue(t, s)
		if err != nil {
			errs = append(errs, fmt.Sprintf("filter on %q: %v", f.Attr, err))
		}
		return v
	}
	switch f.Op {
	case "eq", "ne", "lt", "le", "gt", "ge":
		fc.v = parse(f.Value)
	case "between", "in":
		if f.Op == "between" && len(f.Values) != 2 {
			errs = append(errs, fmt.Sprintf("filter on %q: between needs [low, high]", f.Attr))
		}
		if f.Op == "in" && len(f.Values) == 0 {
			errs = append(errs, fmt.Sprintf("filter on %q: in needs at least one value", f.Attr))
		}
		for _, s := range f.Values {
			fc.vs = append(fc.vs, parse(s))
		}
	default:
		errs = append(errs, fmt.Sprintf("filter on %q: unknown op %q (eq ne lt le gt ge between in or)", f.Attr, f.Op))
	}
	return fc, errs
}

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
		if d.Name == IDsKey {
			bad("the name %q is reserved for the id sets of counting truths", IDsKey)
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
		path := func(s string, k int, what string) (pathComp, bool) {
			p, err := c.resolvePath(s, k)
			if err != nil {
				bad("%s %v", what, err)
				ok = false
				return p, false
			}
			return p, true
		}
		attrList := func(idents []string, k int, what string) []pathComp {
			var out []pathComp
			for _, id := range idents {
				if reservedFields[id] {
					bad("%s %q clashes with a reserved key", what, id)
					ok = false
					continue
				}
				if p, found := path(id, k, what); found {
					out = append(out, p)
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
		filters := func() {
			for _, f := range d.Where {
				fc, errs := compileFilter(c, f, tc.kind)
				for _, e := range errs {
					bad("%s", e)
					ok = false
				}
				tc.filters = append(tc.filters, fc)
			}
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
			if d.Key != "" {
				if p, found := path(d.Key, tc.kind, "key"); found {
					tc.key = &p
				}
			} else {
				for _, p := range tc.attrs {
					if len(p.hops) == 1 && c.attrs[p.hops[0]].info.Unique {
						tc.key = &p
						break
					}
				}
			}
		}
		switch d.Kind {
		case TruthCountBy, TruthSum, TruthAvg, TruthMin, TruthMax:
			p, found := path(d.Attr, -1, "attr")
			if !found {
				break
			}
			tc.path, tc.kind = p, p.kind
			if d.Entity != "" && d.Entity != c.kinds[p.kind].name {
				bad("attr %q belongs to entity %q, not %q", d.Attr, c.kinds[p.kind].name, d.Entity)
				ok = false
			}
			if d.Kind != TruthCountBy {
				if cl := p.last(c).info.Class; cl == ClassText || p.last(c).info.Type == TypeRef || p.last(c).info.Type == TypeBoolean {
					bad("attr %q is a %s: %s needs a long, double or instant", d.Attr, p.last(c).info.Type, d.Kind)
					ok = false
				}
			}
			if d.By != "" {
				if d.Kind == TruthCountBy {
					bad("by applies to sum, avg, min and max; count_by groups by its own attribute")
					ok = false
				} else if bp, found := path(d.By, p.kind, "by"); found {
					tc.by = &bp
				}
			}
			filters()
		case TruthCount:
			if !entity() {
				ok = false
				break
			}
			filters()
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
			case a.target < 0 || c.kinds[a.target].name != d.Entity:
				target := a.info.Gen.Target
				if a.target >= 0 {
					target = c.kinds[a.target].name
				}
				bad("inverse %q points at %q, not %q", d.Inverse, target, d.Entity)
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
// grow with the entity count: only samples, the refs of inverse samples
// (an inverse sample that is a zipf head gathers many), one accumulator
// per group and the fixed-size id sets of counting truths are kept.
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
	ids := map[string]any{}
	for i := range c.truth {
		tc := &c.truth[i]
		var v, set any
		switch tc.decl.Kind {
		case TruthCountBy:
			v, set, err = c.countBy(ctx, tc, workers)
		case TruthCount:
			v, set, err = c.count(ctx, tc, workers)
		case TruthSample:
			v = c.sampleEntries(tc, ds.Seed)
		case TruthInverse:
			v, err = c.inverse(ctx, tc, ds.Seed, workers)
		case TruthChangedSince:
			v, set, err = c.changedSince(ctx, tc, workers)
		case TruthSum, TruthAvg, TruthMin, TruthMax:
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
	t.Values[IDsKey] = ids
	return t, nil
}

// countBy counts entities per current value; a cardinality-many
// attribute (or a path reaching several values) counts each value.
func (c *compiled) countBy(ctx context.Context, tc *truthComp, workers int) (map[string]int64, map[string]IDSet, error) {
	nw := scan.Workers(workers)
	parts := make([]map[Value]*idAcc, nw)
	for w := range parts {
		parts[w] = map[Value]*idAcc{}
	}
	base := c.kinds[tc.kind].base
	err := scan.Chunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		m := parts[w]
		var vals []Value
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
func dupBefore(vals []Value, j int) bool {
	for i := 0; i < j; i++ {
		if vals[i] == vals[j] {
			return true
		}
	}
	return false
}

// count counts entities whose current values satisfy every filter.
func (c *compiled) count(ctx context.Context, tc *truthComp, workers int) (int64, IDSet, error) {
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
func (c *compiled) changedSince(ctx context.Context, tc *truthComp, workers int) (int64, IDSet, error) {
	nw := scan.Workers(workers)
	parts := make([]idAcc, nw)
	a := &c.attrs[tc.attr]
	base := c.kinds[a.kind].base
	err := scan.Chunks(ctx, c.kinds[tc.kind].count, nw, func(w int, lo, hi int64) error {
		acc := &parts[w]
		for id := lo; id < hi; id++ {
			if TxBase+c.initialTx(a.kind, id) > tc.since {
				acc.add(base + id)
				continue
			}
			for _, hi := range a.hists {
				h := &c.hists[hi]
				if h.mode != histStep && !h.selected(id) {
					continue // one draw, before any tx arithmetic
				}
				if TxBase+c.histTx(h, id) > tc.since && c.appliesTo(hi, id) {
					acc.add(base + id)
					break
				}
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
	min, max   Value
}

func (g *aggAcc) add(v Value) {
	if g.n == 0 || v.compare(g.min) < 0 {
		g.min = v
	}
	if g.n == 0 || v.compare(g.max) > 0 {
		g.max = v
	}
	g.n++
	if v.Class() != ClassReal {
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
	if g.n == 0 || o.min.compare(g.min) < 0 {
		g.min = o.min
	}
	if g.n == 0 || o.max.compare(g.max) > 0 {
		g.max = o.max
	}
	g.n += o.n
	g.isum += o.isum
	g.addFloat(o.fsum)
	g.comp += o.comp
}

func (g *aggAcc) result(kind TruthKind, real bool) any {
	if g.n == 0 {
		if kind == TruthSum {
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
	case TruthSum:
		return sum
	case TruthAvg:
		return fs / float64(g.n)
	case TruthMin:
		return g.min.Any()
	}
	return g.max.Any()
}

// aggregate computes sum, avg, min or max of a path's values over the
// matching entities, per group of the by path when set. Chunks merge in
// id order, so a double sum is the same for any worker count.
func (c *compiled) aggregate(ctx context.Context, tc *truthComp, workers int) (any, error) {
	n := c.kinds[tc.kind].count
	chunks := make([]map[string]*aggAcc, (n+scan.Chunk-1)/scan.Chunk)
	err := scan.Chunks(ctx, n, scan.Workers(workers), func(_ int, lo, hi int64) error {
		m := map[string]*aggAcc{}
		var vals, keys []Value
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
				keys = append(keys, Value{})
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
	real := tc.path.last(c).info.Class == ClassReal
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
func (c *compiled) entry(k int, id int64, attrs []pathComp, key *pathComp, asOf int64) Entry {
	e := Entry{ID: id, E: c.kinds[k].base + id, Fields: make(map[string]any, len(attrs))}
	var vals []Value
	var b pathBuf
	for i := range attrs {
		p := &attrs[i]
		vals = c.pathValues(p, id, asOf, vals[:0], &b)
		if p.last(c).info.Many || len(p.hops) > 1 && len(vals) != 1 {
			list := make([]any, len(vals))
			sort.Slice(vals, func(i, j int) bool { return vals[i].compare(vals[j]) < 0 })
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

func (c *compiled) sampleEntries(tc *truthComp, seed uint64) []Entry {
	ids := sampleIDs(seed, tc.decl.Name, tc.decl.N, c.kinds[tc.kind].count)
	out := make([]Entry, len(ids))
	for i, id := range ids {
		out[i] = c.entry(tc.kind, id, tc.attrs, tc.key, tc.asOf)
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
	nw := scan.Workers(workers)
	parts := make([][]hit, nw)
	err := scan.Chunks(ctx, c.kinds[tc.refKind].count, nw, func(w int, lo, hi int64) error {
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
			refs[j] = c.entry(tc.refKind, refs[j].ID, tc.refAttrs, nil, tc.asOf)
		}
	}
	return out, nil
}
