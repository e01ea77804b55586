package datagen

import (
	"errors"
	"fmt"
	"math"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// WriteDecl declares a stream of writes after the load. Write k is a pure
// function of (seed, name, k), like every datom.
//
// An update sets one cardinality-one, non-unique attribute of one entity
// of kind Entity, drawn by Target (a ref or zipf generator over Entity):
// Attr, or with Attrs one of them drawn uniformly per write. The value is
// a draw of Value, or with Value unset (Kind "") a fresh draw of that
// attribute's own generator (which may equal the current value).
//
// An insert (Insert set) creates a new entity of kind Entity: insert k has
// id Count(Entity)+k, every attribute drawn by the kind's own generators
// at that id, as the load would draw it. Attr, Attrs, Value and Target
// stay unset.
type WriteDecl struct {
	Name   string
	Entity string
	Attr   string
	Attrs  []string
	Value  Generator
	Target Generator
	Insert bool
}

// WriteOp is one write in transaction Tx. An update gives entity E (id
// ID of Entity) Value for Attr (attribute id A). An insert creates entity
// E with every attribute of the kind in Values.
type WriteOp struct {
	K      int64
	Entity string
	ID     int64
	E      int64
	Attr   string
	A      int32
	Value  Value
	Tx     int64
	Insert bool
	Values []AttrValues // insert: the kind's attributes in declaration order
}

// AttrValues is one attribute of an inserted entity with its values: one
// for cardinality one, a sample's refs sorted by entity id (possibly none)
// for cardinality many.
type AttrValues struct {
	Attr   string
	A      int32
	Class  Class
	Values []Value
}

// Writes is a dataset's compiled write generators.
//
// Write transactions share one tx space after the load: write k of
// generator i (0-based, declaration order) of G is committed in tx
// TxBase + TxCount + k*G + i, so no two writes share a tx id and a
// dataset with one generator keeps TxBase + TxCount + k.
type Writes struct {
	ds    *Dataset
	c     *compiled
	gens  map[string]*writeGen
	names []string
	maxK  int64 // the largest k whose tx id fits in an int64
}

type writeGen struct {
	decl   WriteDecl
	slot   int64 // declaration index: its place in the shared tx space
	kind   int
	attrs  []int       // update: the attributes it may write
	values []genComp   // update: each attribute's value generator
	pick   draw.Stream // update of several attributes: which one write k sets
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
	inserts := map[int]string{} // kind -> its insert generator
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
		g := &writeGen{decl: d, kind: k}
		if d.Insert {
			if d.Attr != "" || len(d.Attrs) > 0 || d.Value.Kind != "" || d.Target.Kind != "" {
				bad("an insert draws every attribute from the entity's own generators: attr, attrs, value and target belong to updates")
				continue
			}
			if why := c.kinds[k].noInsert; why != "" {
				bad("cannot insert %q entities: %s", d.Entity, why)
				continue
			}
			if prev, ok := inserts[k]; ok {
				// Both would create id Count + k: one insert stream per kind.
				bad("write %q already inserts %q entities: a kind has one insert generator, whose k numbers its new ids", prev, d.Entity)
				continue
			}
			inserts[k] = d.Name
			w.add(g)
			continue
		}
		idents := d.Attrs
		switch {
		case d.Attr != "" && len(d.Attrs) > 0:
			bad("set attr or attrs, not both")
			continue
		case d.Attr != "":
			idents = []string{d.Attr}
		case len(d.Attrs) == 0:
			bad("an update needs attr or attrs (or insert = true)")
			continue
		}
		n := len(el.errs)
		seen := map[string]bool{}
		for _, ident := range idents {
			if seen[ident] {
				bad("attrs lists %q twice", ident)
				continue
			}
			seen[ident] = true
			ai, ok := c.byIdent[ident]
			if !ok {
				bad("attr %q is not an attribute", ident)
				continue
			}
			a := &c.attrs[ai]
			if a.kind != k {
				bad("attr %q belongs to entity %q, not %q", ident, a.info.Entity, d.Entity)
				continue
			}
			if a.info.Many || a.info.Unique {
				bad("attr %q must be cardinality one and not unique", ident)
				continue
			}
			val := attrComp{info: a.info, kind: k}
			if d.Value.Kind != "" {
				val.info.Ident = "write " + d.Name + " value"
				val.info.Gen = d.Value
			} else {
				switch a.info.Gen.Kind {
				case GenSeq, GenConst, GenParent, GenOrdinal, GenOffset:
					bad("attr %q uses a %s generator, which a write cannot redraw: set value", ident, a.info.Gen.Kind)
					continue
				}
				// Its own stream: a redraw is independent of the loaded values.
				val.info.Ident = "write " + d.Name + " redraw " + ident
			}
			compileGen(ds, c, &val, el)
			g.attrs = append(g.attrs, ai)
			g.values = append(g.values, val.gen)
		}
		if len(el.errs) > n {
			continue
		}
		if !IsKeyChooser(d.Target.Kind) {
			bad("target must be a key chooser over %q (ref, zipf, scrambled_zipf, latest or hotspot), not %q", d.Entity, d.Target.Kind)
			continue
		}
		if d.Target.Target != d.Entity {
			bad("target draws entities of %q, not %q", d.Target.Target, d.Entity)
			continue
		}
		tgt := attrComp{info: AttrInfo{Attr: Attr{Ident: "write " + d.Name + " target", Type: TypeRef, Gen: d.Target}, Entity: d.Entity, Class: ClassInt}, kind: k}
		compileGen(ds, c, &tgt, el)
		if len(el.errs) > n {
			continue
		}
		g.target = tgt.gen
		g.pick = draw.NewStream(ds.Seed, "write "+d.Name, "attr")
		w.add(g)
	}
	if len(el.errs) > 0 {
		return nil, errors.Join(el.errs...)
	}
	if stride := int64(len(w.names)); stride > 0 {
		w.maxK = (math.MaxInt64 - TxBase - c.txCount - stride) / stride
	}
	return w, nil
}

func (w *Writes) add(g *writeGen) {
	g.slot = int64(len(w.names))
	w.gens[g.decl.Name] = g
	w.names = append(w.names, g.decl.Name)
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

// Op returns write k of generator name, in tx TxBase + TxCount + k*G + i
// (see Writes).
func (w *Writes) Op(name string, k int64) (WriteOp, error) {
	if w == nil {
		return WriteOp{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	g, ok := w.gens[name]
	if !ok {
		return WriteOp{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	if err := w.checkK(g, k); err != nil {
		return WriteOp{}, fmt.Errorf("datagen: %w", err)
	}
	return w.op(g, k), nil
}

// checkK says why generator g has no write k, if it has none.
func (w *Writes) checkK(g *writeGen, k int64) error {
	if k < 0 || k > w.maxK {
		return fmt.Errorf("write %q has no write %d (k in [0, %d])", g.decl.Name, k, w.maxK)
	}
	if n := w.c.kinds[g.kind].count; g.decl.Insert && k >= EntityBase-n {
		return fmt.Errorf("insert %d of %q: id %d is past the %q id space (%d)", k, g.decl.Name, n+k, g.decl.Entity, EntityBase)
	}
	return nil
}

func (w *Writes) tx(g *writeGen, k int64) int64 {
	return TxBase + w.c.txCount + k*int64(len(w.names)) + g.slot
}

// op is write k of g (k checked).
func (w *Writes) op(g *writeGen, k int64) WriteOp {
	c := w.c
	kc := &c.kinds[g.kind]
	if g.decl.Insert {
		id := kc.count + k
		op := WriteOp{K: k, Entity: g.decl.Entity, ID: id, E: kc.base + id, Tx: w.tx(g, k), Insert: true,
			Values: make([]AttrValues, 0, len(kc.attrs))}
		var scratch []int64
		for _, ai := range kc.attrs {
			a := &c.attrs[ai]
			var vals []Value
			vals, scratch = a.gen.values(id, verWord(0, 0), nil, scratch)
			op.Values = append(op.Values, AttrValues{Attr: a.info.Ident, A: a.info.ID, Class: a.info.Class, Values: vals})
		}
		return op
	}
	i := g.choose(k)
	e := g.target.one(k, 0).Int
	a := &c.attrs[g.attrs[i]]
	return WriteOp{K: k, Entity: g.decl.Entity, ID: e - kc.base, E: e, Attr: a.info.Ident, A: a.info.ID,
		Value: g.values[i].one(k, 0), Tx: w.tx(g, k)}
}

// choose is the index in g.attrs of the attribute update k writes.
func (g *writeGen) choose(k int64) int {
	if len(g.attrs) == 1 {
		return 0
	}
	return int(draw.Below(g.pick.Draw(k, 0, 0), uint64(len(g.attrs))))
}

// Value returns the value of attribute attr of entity e after writes
// 0..n-1 of generator name: the last of them to touch (e, attr), or the
// generated current value. It applies to updates of one attribute.
func (w *Writes) Value(name string, n int64, e int64) (Value, error) {
	g, ok := w.gens[name]
	if !ok {
		return Value{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	if len(g.attrs) != 1 {
		return Value{}, fmt.Errorf("datagen: write %q is not an update of one attribute", name)
	}
	for k := min(n, w.maxK+1) - 1; k >= 0; k-- {
		if op := w.op(g, k); op.E == e {
			return op.Value, nil
		}
	}
	id := e - w.c.kinds[g.kind].base
	vals, _ := w.c.valuesAsOf(g.attrs[0], id, -1, nil, nil)
	if len(vals) == 0 {
		return Value{}, fmt.Errorf("datagen: entity %d has no %s", e, g.decl.Attr)
	}
	return vals[0], nil
}

// ErrNotAdvanceable marks a truth a write changes in a way the generator
// cannot follow.
var ErrNotAdvanceable = errors.New("cannot be advanced by writes")

// Advance returns base's truth after writes 0..n-1 of generator name
// committed, computed without reading any database: AdvanceJournal over
// a journal of that prefix.
func (w *Writes) Advance(base *Truth, name string, n int64) (*Truth, error) {
	j := NewJournal()
	if err := w.CommitPrefix(j, name, n); err != nil {
		return nil, err
	}
	return w.AdvanceJournal(base, j)
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

// touches says how truth tc reads the attributes update g writes.
func (g *writeGen) touches(tc *truthComp) int {
	t := touchNone
	for _, ai := range g.attrs {
		t = max(t, touchesAttr(tc, ai))
	}
	return t
}

// touchesAttr says how truth tc reads attribute ai.
func touchesAttr(tc *truthComp, ai int) int {
	t := filtersTouch(tc.filters, ai)
	switch tc.decl.Kind {
	case TruthCountBy, TruthSum, TruthAvg, TruthMin, TruthMax:
		t = max(t, pathTouch(&tc.path, ai))
		if tc.by != nil {
			t = max(t, pathTouch(tc.by, ai))
		}
		if tc.decl.Kind != TruthCountBy && t != touchNone {
			t = touchDeep
		}
	case TruthSample, TruthInverse:
		for _, ps := range [][]pathComp{tc.attrs, tc.refAttrs} {
			for i := range ps {
				t = max(t, pathTouch(&ps[i], ai))
			}
		}
		if tc.key != nil && pathTouch(tc.key, ai) != touchNone {
			t = touchDeep
		}
		if tc.decl.Kind == TruthInverse && tc.attr == ai {
			t = touchDeep
		}
	case TruthCount:
		// its filters, above
	case TruthChangedSince:
		if tc.attr == ai {
			t = max(t, touchShallow)
		}
	}
	return t
}

// insertTouches says how truth tc follows inserts of g's kind: not at all
// (touchNone), exactly (touchShallow), or not (touchDeep). An inserted
// entity refers only to loaded ones, so only truths over its own kind,
// and inverse truths whose refs it may join, change.
func (w *Writes) insertTouches(g *writeGen, tc *truthComp) int {
	switch tc.decl.Kind {
	case TruthCount, TruthCountBy, TruthMin, TruthMax:
		if tc.kind == g.kind {
			return touchShallow
		}
	case TruthSum:
		if tc.kind == g.kind {
			if tc.path.last(w.c).info.Class == ClassReal {
				return touchDeep // a double sum depends on the order of its terms
			}
			return touchShallow
		}
	case TruthAvg:
		if tc.kind == g.kind {
			return touchDeep // the base truth keeps the mean, not the count
		}
	case TruthChangedSince:
		if tc.kind == g.kind {
			return touchShallow
		}
	case TruthInverse:
		if tc.refKind == g.kind {
			return touchShallow
		}
	}
	return touchNone
}

// stale reports whether writes of g make truth tc unknowable, and how
// they touch it otherwise.
func (w *Writes) stale(g *writeGen, tc *truthComp) (bool, int) {
	if tc.asOf >= 0 && (tc.decl.Kind == TruthSample || tc.decl.Kind == TruthInverse) {
		return false, touchNone // as of a mark before the writes: unchanged
	}
	if g.decl.Insert {
		t := w.insertTouches(g, tc)
		return t == touchDeep, t
	}
	t := g.touches(tc)
	if t == touchDeep {
		return true, t
	}
	if t == touchShallow && tc.decl.Kind == TruthCountBy {
		for _, ai := range g.attrs {
			if filtersTouch(tc.filters, ai) != touchNone {
				return true, t
			}
		}
	}
	return false, t
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
// writes), without running any write. The truths several generators make
// unknowable together are the union of each one's.
func (w *Writes) Stale(name string) []string {
	g, ok := w.gens[name]
	if !ok {
		return nil
	}
	var out []string
	for i := range w.c.truth {
		tc := &w.c.truth[i]
		if st, _ := w.stale(g, tc); st {
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
