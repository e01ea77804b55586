package datagen

import (
	"errors"
	"fmt"
	"maps"
	"sort"
)

// WriteDecl declares a stream of writes after the load: write k sets the
// cardinality-one attribute Attr of one entity of kind Entity, drawn by
// Target (a ref or zipf generator over Entity), to a value drawn by Value
// (a generator of the attribute's type). Write k is a pure function of
// (seed, name, k), like every datom.
type WriteDecl struct {
	Name   string
	Entity string
	Attr   string
	Value  Generator
	Target Generator
}

// WriteOp is one write: entity E (id ID of Entity) gets Value for Attr in
// transaction Tx.
type WriteOp struct {
	K      int64
	Entity string
	ID     int64
	E      int64
	Attr   string
	A      int32
	Value  Value
	Tx     int64
}

// Writes is a dataset's compiled write generators.
type Writes struct {
	ds    *Dataset
	c     *compiled
	gens  map[string]*writeGen
	names []string
}

type writeGen struct {
	decl   WriteDecl
	kind   int
	attr   int
	value  genComp
	target genComp
}

// NewWrites compiles decls against ds (Finish()ed). All problems are
// returned together.
func NewWrites(ds *Dataset, decls []WriteDecl) (*Writes, error) {
	c, err := ds.compiled()
	if err != nil {
		return nil, err
	}
	w := &Writes{ds: ds, c: c, gens: map[string]*writeGen{}}
	el := &errList{}
	for _, d := range decls {
		bad := func(format string, args ...any) {
			el.add("write %q: "+format, append([]any{d.Name}, args...)...)
		}
		if _, dup := w.gens[d.Name]; dup {
			bad("declared twice")
			continue
		}
		k, ok := c.byKind[d.Entity]
		if !ok {
			bad("entity %q is not an entity", d.Entity)
			continue
		}
		ai, ok := c.byIdent[d.Attr]
		if !ok {
			bad("attr %q is not an attribute", d.Attr)
			continue
		}
		a := &c.attrs[ai]
		if a.kind != k {
			bad("attr %q belongs to entity %q, not %q", d.Attr, a.info.Entity, d.Entity)
			continue
		}
		if a.info.Many || a.info.Unique {
			bad("attr %q must be cardinality one and not unique", d.Attr)
			continue
		}
		if d.Target.Kind != GenRef && d.Target.Kind != GenZipf {
			bad("target must be ref(%q) or zipf(%q, s), not %q", d.Entity, d.Entity, d.Target.Kind)
			continue
		}
		if d.Target.Target != d.Entity {
			bad("target draws entities of %q, not %q", d.Target.Target, d.Entity)
			continue
		}
		g := &writeGen{decl: d, kind: k, attr: ai}
		n := len(el.errs)
		val := attrComp{info: a.info, kind: k}
		val.info.Ident = "write " + d.Name + " value"
		val.info.Gen = d.Value
		compileGen(ds, c, &val, el)
		tgt := attrComp{info: AttrInfo{Attr: Attr{Ident: "write " + d.Name + " target", Type: TypeRef, Gen: d.Target}, Entity: d.Entity, Class: ClassInt}, kind: k}
		compileGen(ds, c, &tgt, el)
		if len(el.errs) > n {
			continue
		}
		g.value, g.target = val.gen, tgt.gen
		w.gens[d.Name] = g
		w.names = append(w.names, d.Name)
	}
	if len(el.errs) > 0 {
		return nil, errors.Join(el.errs...)
	}
	return w, nil
}

// Names lists the write generators in declaration order.
func (w *Writes) Names() []string {
	if w == nil {
		return nil
	}
	return append([]string(nil), w.names...)
}

// Decl returns a write generator's declaration.
func (w *Writes) Decl(name string) (WriteDecl, bool) {
	if w == nil {
		return WriteDecl{}, false
	}
	g, ok := w.gens[name]
	if !ok {
		return WriteDecl{}, false
	}
	return g.decl, true
}

// Op returns write k of generator name. Its tx id follows the loaded
// stream: TxBase + TxCount + k.
func (w *Writes) Op(name string, k int64) (WriteOp, error) {
	if w == nil {
		return WriteOp{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	g, ok := w.gens[name]
	if !ok {
		return WriteOp{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	return g.op(w.c, k), nil
}

func (g *writeGen) op(c *compiled, k int64) WriteOp {
	e := g.target.one(k, 0).Int
	a := &c.attrs[g.attr]
	return WriteOp{K: k, Entity: g.decl.Entity, ID: e - c.kinds[g.kind].base, E: e, Attr: g.decl.Attr, A: a.info.ID,
		Value: g.value.one(k, 0), Tx: TxBase + c.txCount + k}
}

// Value returns the value of attribute attr of entity e after writes
// 0..n-1 of generator name: the last of them to touch (e, attr), or the
// generated current value.
func (w *Writes) Value(name string, n int64, e int64) (Value, error) {
	g, ok := w.gens[name]
	if !ok {
		return Value{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	for k := n - 1; k >= 0; k-- {
		if op := g.op(w.c, k); op.E == e {
			return op.Value, nil
		}
	}
	id := e - w.c.kinds[g.kind].base
	vals, _ := w.c.valuesAsOf(g.attr, id, -1, nil, nil)
	if len(vals) == 0 {
		return Value{}, fmt.Errorf("datagen: entity %d has no %s", e, g.decl.Attr)
	}
	return vals[0], nil
}

// ErrNotAdvanceable marks a truth a write changes in a way the generator
// cannot follow.
var ErrNotAdvanceable = errors.New("cannot be advanced by writes")

// Advance returns base's truth after writes 0..n-1 of generator name
// committed, computed without reading any database. Truth declarations
// the writes do not touch keep their values (a truth as of a mark before
// the writes never changes); a declaration the writes touch in a way the
// generator cannot follow is left out of Values and named in the error,
// which wraps ErrNotAdvanceable.
func (w *Writes) Advance(base *Truth, name string, n int64) (*Truth, error) {
	g, ok := w.gens[name]
	if !ok {
		return nil, fmt.Errorf("datagen: no write %q declared", name)
	}
	c := w.c
	out := *base
	out.Values = make(map[string]any, len(base.Values))
	for k, v := range base.Values {
		out.Values[k] = v
	}
	if n <= 0 {
		return &out, nil
	}
	// Net effect per touched entity: its value before the writes and after.
	final := map[int64]Value{} // entity id -> value after the writes
	var order []int64
	for k := int64(0); k < n; k++ {
		op := g.op(c, k)
		if _, seen := final[op.ID]; !seen {
			order = append(order, op.ID)
		}
		final[op.ID] = op.Value
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	original := func(id int64) (Value, bool) {
		vals, _ := c.valuesAsOf(g.attr, id, -1, nil, nil)
		if len(vals) == 0 {
			return Value{}, false
		}
		return vals[0], true
	}
	firstTx := TxBase + c.txCount
	ids, _ := base.Values[IDsKey].(map[string]any)
	if ids != nil {
		ids = maps.Clone(ids)
		out.Values[IDsKey] = ids
	}
	var stale []string
	drop := func(name string) {
		stale = append(stale, name)
		delete(out.Values, name)
		delete(ids, name)
	}
	var buf pathBuf
	for i := range c.truth {
		tc := &c.truth[i]
		name := tc.decl.Name
		if tc.asOf >= 0 && (tc.decl.Kind == TruthSample || tc.decl.Kind == TruthInverse) {
			continue // as of a mark before the writes: unchanged
		}
		touch := g.touches(tc)
		if touch == touchNone {
			continue
		}
		if touch == touchDeep {
			drop(name)
			continue
		}
		switch tc.decl.Kind {
		case TruthCountBy:
			if filtersTouch(tc.filters, g.attr) != touchNone {
				drop(name)
				continue
			}
			old, _ := base.Values[name].(map[string]int64)
			m := maps.Clone(old)
			if m == nil {
				m = map[string]int64{}
			}
			for _, id := range order {
				if !c.matches(tc.filters, id, &buf) {
					continue
				}
				if prev, ok := original(id); ok {
					if m[prev.String()]--; m[prev.String()] == 0 {
						delete(m, prev.String())
					}
				}
				m[final[id].String()]++
			}
			out.Values[name] = m
			delete(ids, name) // the id sets are not followed
		case TruthCount:
			cnt, _ := base.Values[name].(int64)
			for _, id := range order {
				before := c.matches(tc.filters, id, &buf)
				v := final[id]
				after := c.matchesWith(tc.filters, id, &buf, g.attr, v)
				switch {
				case before && !after:
					cnt--
				case after && !before:
					cnt++
				}
			}
			out.Values[name] = cnt
			delete(ids, name)
		case TruthSample:
			out.Values[name] = replaceFields(base.Values[name], g.decl.Attr, final, false)
		case TruthInverse:
			if tc.attr == g.attr {
				drop(name)
				continue
			}
			v := base.Values[name]
			if tc.kind == g.kind && pathsTouch(tc.attrs, g.attr) {
				v = replaceFields(v, g.decl.Attr, final, false)
			}
			if tc.refKind == g.kind && pathsTouch(tc.refAttrs, g.attr) {
				v = replaceFields(v, g.decl.Attr, final, true)
			}
			out.Values[name] = v
		case TruthChangedSince:
			if tc.since >= firstTx {
				continue
			}
			cnt, _ := base.Values[name].(int64)
			for _, id := range order {
				// Each write logs a retract and an assert: the entity changed
				// after the mark unless it already had.
				if !c.changedAfter(g.attr, id, tc.since) {
					cnt++
				}
			}
			out.Values[name] = cnt
			delete(ids, name)
		default:
			drop(name) // aggregates and kinds this function does not follow
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		return &out, fmt.Errorf("truth %v: %w (write %q)", stale, ErrNotAdvanceable, g.decl.Name)
	}
	return &out, nil
}

// How a truth reads the written attribute.
const (
	touchNone    = iota // not at all
	touchShallow        // directly (a one-hop path): the truth can follow the writes
	touchDeep           // through a ref path, or as a key: it cannot
)

func pathTouch(p *pathComp, ai int) int {
	for i, h := range p.hops {
		if h == ai {
			if len(p.hops) == 1 && i == 0 {
				return touchShallow
			}
			return touchDeep
		}
	}
	return touchNone
}

func pathsTouch(ps []pathComp, ai int) bool {
	for i := range ps {
		if pathTouch(&ps[i], ai) != touchNone {
			return true
		}
	}
	return false
}

func filtersTouch(fs []filterComp, ai int) int {
	t := touchNone
	for i := range fs {
		f := &fs[i]
		var ft int
		if f.op == "or" {
			ft = filtersTouch(f.any, ai)
		} else {
			ft = pathTouch(&f.path, ai)
		}
		t = max(t, ft)
	}
	return t
}

// touches says how truth tc reads the written attribute.
func (g *writeGen) touches(tc *truthComp) int {
	t := filtersTouch(tc.filters, g.attr)
	switch tc.decl.Kind {
	case TruthCountBy, TruthSum, TruthAvg, TruthMin, TruthMax:
		t = max(t, pathTouch(&tc.path, g.attr))
		if tc.by != nil {
			t = max(t, pathTouch(tc.by, g.attr))
		}
		if tc.decl.Kind != TruthCountBy && t != touchNone {
			t = touchDeep
		}
	case TruthSample, TruthInverse:
		for _, ps := range [][]pathComp{tc.attrs, tc.refAttrs} {
			for i := range ps {
				t = max(t, pathTouch(&ps[i], g.attr))
			}
		}
		if tc.key != nil && pathTouch(tc.key, g.attr) != touchNone {
			t = touchDeep
		}
		if tc.decl.Kind == TruthInverse && tc.attr == g.attr {
			t = touchDeep
		}
	case TruthCount:
		// its filters, above
	case TruthChangedSince:
		if tc.attr == g.attr {
			t = max(t, touchShallow)
		}
	default:
		if t == touchNone && tc.kind == g.kind {
			t = touchDeep
		}
	}
	return t
}

// matchesWith is matches with attribute ai's value of id replaced by v.
func (c *compiled) matchesWith(fs []filterComp, id int64, b *pathBuf, ai int, v Value) bool {
	for i := range fs {
		if !c.matchWith(&fs[i], id, b, ai, v) {
			return false
		}
	}
	return true
}

func (c *compiled) matchWith(f *filterComp, id int64, b *pathBuf, ai int, v Value) bool {
	if f.op == "or" {
		for i := range f.any {
			if c.matchWith(&f.any[i], id, b, ai, v) {
				return true
			}
		}
		return false
	}
	if pathTouch(&f.path, ai) == touchShallow {
		return matchOne(f.path.last(c).info.Class, f, v)
	}
	return c.match(f, id, b)
}

// changedAfter reports whether attribute ai of id has a datom in a tx
// after since (its initial assert included), as changedSince counts.
func (c *compiled) changedAfter(ai int, id, since int64) bool {
	a := &c.attrs[ai]
	if TxBase+c.initialTx(a.kind, id) > since {
		return true
	}
	for _, hi := range a.hists {
		h := &c.hists[hi]
		if h.mode != histStep && !h.selected(id) {
			continue
		}
		if TxBase+c.histTx(h, id) > since && c.appliesTo(hi, id) {
			return true
		}
	}
	return false
}

// Stale lists the truth declarations that writes of generator name make
// impossible to follow (a check reading them cannot be resolved after the
// writes), without running any write.
func (w *Writes) Stale(name string) []string {
	g, ok := w.gens[name]
	if !ok {
		return nil
	}
	var out []string
	for i := range w.c.truth {
		tc := &w.c.truth[i]
		if tc.asOf >= 0 && (tc.decl.Kind == TruthSample || tc.decl.Kind == TruthInverse) {
			continue
		}
		t := g.touches(tc)
		if t == touchDeep || t == touchShallow && tc.decl.Kind == TruthCountBy && filtersTouch(tc.filters, g.attr) != touchNone {
			out = append(out, tc.decl.Name)
		}
	}
	return out
}

// replaceFields copies a []Entry truth with field ident of the entities in
// final replaced (in the refs of each entry when refs is set).
func replaceFields(v any, ident string, final map[int64]Value, refs bool) any {
	entries, ok := v.([]Entry)
	if !ok {
		return v
	}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		if refs {
			e.Refs = replaceFields(e.Refs, ident, final, false).([]Entry)
		} else if nv, ok := final[e.ID]; ok {
			f := make(map[string]any, len(e.Fields))
			for k, x := range e.Fields {
				f[k] = x
			}
			f[ident] = nv.Any()
			e.Fields = f
		}
		out[i] = e
	}
	return out
}
