// Package writes is a dataset's write generators: streams of updates and
// inserts after the load, each write a pure function of (seed, name, k),
// and the journal of which of them committed.
package writes

import (
	"errors"
	"fmt"
	"math"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

// Decl declares a stream of writes after the load. Write k is a pure
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
type Decl struct {
	Name   string
	Entity string
	Attr   string
	Attrs  []string
	Value  datagen.Generator
	Target datagen.Generator
	Insert bool
	// Delta makes an update additive: write k adds a draw of Delta to the
	// attribute (a long) instead of assigning Value. Additions commute, so
	// the value after any set of commits is the loaded value plus the sum
	// of their deltas, whatever order they committed in.
	Delta datagen.Generator
	// Steps makes the write a transaction over several entities (tx.go);
	// Entity, Attr, Attrs, Value, Target, Insert and Delta stay unset.
	Steps []Step
	// Draws are named values drawn per write k, bound as :NAME and read
	// by the steps' run-time deltas and the abort condition as draw.NAME.
	Draws []Draw
	// AbortIf, when set, is evaluated after the transaction's read: true
	// rolls the transaction back as an intended abort (no step applies).
	AbortIf Expr
}

// Op is one write in transaction Tx. An update gives entity E (id ID of
// Entity) Value for Attr (attribute id A). An insert creates entity E
// with every attribute of the kind in Values.
type Op struct {
	K      int64
	Entity string
	ID     int64
	E      int64
	Attr   string
	A      int32
	Value  datagen.Value
	Tx     int64
	Insert bool
	Add    bool         // Value is a delta added to the attribute
	Values []AttrValues // insert: the kind's attributes in declaration order
}

// AttrValues is one attribute of an inserted entity with its values: one
// for cardinality one, a sample's refs sorted by entity id (possibly none)
// for cardinality many.
type AttrValues struct {
	Attr   string
	A      int32
	Class  datagen.Class
	Values []datagen.Value
}

// Writes is a dataset's compiled write generators.
//
// Write transactions share one tx space after the load: write k of
// generator i (0-based, declaration order) of G is committed in tx
// TxBase + TxCount + k*G + i, so no two writes share a tx id and a
// dataset with one generator keeps TxBase + TxCount + k.
type Writes struct {
	ds    *datagen.Dataset
	gens  map[string]*writeGen
	txs   map[string]*txGen // transactions (tx.go), also in gens
	names []string
	maxK  int64 // the largest k whose tx id fits in an int64
}

type writeGen struct {
	decl   Decl
	slot   int64                        // declaration index: its place in the shared tx space
	count  int64                        // the kind's loaded entities
	base   int64                        // the entity id of the kind's id 0
	attrs  []datagen.AttrInfo           // update: the attributes it may write
	values []*datagen.CompiledGenerator // update: each attribute's value generator
	pick   draw.Stream                  // update of several attributes: which one write k sets
	target *datagen.CompiledGenerator
	add    bool // values are deltas
}

// New compiles decls against ds (Finish()ed). All problems are returned
// together.
func New(ds *datagen.Dataset, decls []Decl) (*Writes, error) {
	if err := ds.Ready(); err != nil {
		return nil, err
	}
	w := &Writes{ds: ds, gens: map[string]*writeGen{}, txs: map[string]*txGen{}}
	var errs []error
	add := func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, j.Unwrap()...)
			return
		}
		errs = append(errs, err)
	}
	inserts := map[string]string{} // kind -> its insert generator
	for _, d := range decls {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("write %q: "+format, append([]any{d.Name}, args...)...))
		}
		if _, dup := w.gens[d.Name]; dup {
			bad("declared twice")
			continue
		}
		if len(d.Steps) > 0 {
			t, err := w.newTx(d, inserts)
			if err != nil {
				add(err)
				continue
			}
			w.add(&writeGen{decl: d})
			w.txs[d.Name] = t
			continue
		}
		if len(d.Draws) > 0 || d.AbortIf != nil {
			bad("draws and abort_if belong to a transaction (step blocks)")
			continue
		}
		base, err := ds.EntityID(d.Entity, 0)
		if err != nil {
			bad("entity %q is not an entity", d.Entity)
			continue
		}
		g := &writeGen{decl: d, count: ds.Count(d.Entity), base: base}
		if d.Insert {
			if d.Attr != "" || len(d.Attrs) > 0 || d.Value.Kind != "" || d.Target.Kind != "" || d.Delta.Kind != "" {
				bad("an insert draws every attribute from the entity's own generators: attr, attrs, value, delta and target belong to updates")
				continue
			}
			if why := ds.InsertProblem(d.Entity); why != "" {
				bad("cannot insert %q entities: %s", d.Entity, why)
				continue
			}
			if prev, ok := inserts[d.Entity]; ok {
				// Both would create id Count + k: one insert stream per kind.
				bad("write %q already inserts %q entities: a kind has one insert generator, whose k numbers its new ids", prev, d.Entity)
				continue
			}
			inserts[d.Entity] = d.Name
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
		if d.Delta.Kind != "" && d.Value.Kind != "" {
			bad("set value (an assignment) or delta (an addition), not both")
			continue
		}
		g.add = d.Delta.Kind != ""
		n := len(errs)
		seen := map[string]bool{}
		for _, ident := range idents {
			if seen[ident] {
				bad("attrs lists %q twice", ident)
				continue
			}
			seen[ident] = true
			a, ok := ds.Attr(ident)
			if !ok {
				bad("attr %q is not an attribute", ident)
				continue
			}
			if a.Entity != d.Entity {
				bad("attr %q belongs to entity %q, not %q", ident, a.Entity, d.Entity)
				continue
			}
			if a.Many || a.Unique {
				bad("attr %q must be cardinality one and not unique", ident)
				continue
			}
			val := a
			if g.add {
				if a.Type != datagen.TypeLong {
					bad("attr %q is a %s: a delta adds to a long", ident, a.Type)
					continue
				}
				val.Ident = "write " + d.Name + " delta"
				val.Gen = d.Delta
			} else if d.Value.Kind != "" {
				val.Ident = "write " + d.Name + " value"
				val.Gen = d.Value
			} else {
				switch a.Gen.Kind {
				case datagen.GenSeq, datagen.GenConst, datagen.GenParent, datagen.GenOrdinal, datagen.GenOffset:
					bad("attr %q uses a %s generator, which a write cannot redraw: set value", ident, a.Gen.Kind)
					continue
				}
				// Its own stream: a redraw is independent of the loaded values.
				val.Ident = "write " + d.Name + " redraw " + ident
			}
			vg, err := ds.CompileGenerator(val)
			if err != nil {
				add(err)
			}
			g.attrs = append(g.attrs, a)
			g.values = append(g.values, vg)
		}
		if len(errs) > n {
			continue
		}
		if !datagen.IsKeyChooser(d.Target.Kind) {
			bad("target must be a key chooser over %q (%s), not %q", d.Entity, datagen.ChooserNames(), d.Target.Kind)
			continue
		}
		if d.Target.Target != d.Entity {
			bad("target draws entities of %q, not %q", d.Target.Target, d.Entity)
			continue
		}
		tg, err := ds.CompileGenerator(datagen.AttrInfo{Attr: datagen.Attr{Ident: "write " + d.Name + " target", Type: datagen.TypeRef, Gen: d.Target}, Entity: d.Entity, Class: datagen.ClassInt})
		if err != nil {
			add(err)
			continue
		}
		g.target = tg
		g.pick = draw.NewStream(ds.Seed, "write "+d.Name, "attr")
		w.add(g)
	}
	if len(errs) == 0 {
		errs = append(errs, w.mixedForms()...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if stride := int64(len(w.names)); stride > 0 {
		w.maxK = (math.MaxInt64 - datagen.TxBase - ds.TxCount() - stride) / stride
	}
	return w, nil
}

func (w *Writes) add(g *writeGen) {
	g.slot = int64(len(w.names))
	w.gens[g.decl.Name] = g
	w.names = append(w.names, g.decl.Name)
}

// Dataset is the dataset the writes were compiled against.
func (w *Writes) Dataset() *datagen.Dataset { return w.ds }

// Names lists the write generators in declaration order.
func (w *Writes) Names() []string {
	if w == nil {
		return nil
	}
	return append([]string(nil), w.names...)
}

// Decl returns a write generator's declaration.
func (w *Writes) Decl(name string) (Decl, bool) {
	if w == nil {
		return Decl{}, false
	}
	g, ok := w.gens[name]
	if !ok {
		return Decl{}, false
	}
	return g.decl, true
}

// Attrs lists the attributes an update generator may write, in its
// declaration's order (none for an insert or an unknown name).
func (w *Writes) Attrs(name string) []datagen.AttrInfo {
	g, ok := w.gens[name]
	if !ok {
		return nil
	}
	return append([]datagen.AttrInfo(nil), g.attrs...)
}

// Op returns write k of generator name, in tx TxBase + TxCount + k*G + i
// (see Writes).
func (w *Writes) Op(name string, k int64) (Op, error) {
	if w == nil {
		return Op{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	g, ok := w.gens[name]
	if !ok {
		return Op{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	if w.txs[name] != nil {
		return Op{}, fmt.Errorf("datagen: write %q is a transaction of steps (TxOp)", name)
	}
	if err := w.checkK(g, k); err != nil {
		return Op{}, fmt.Errorf("datagen: %w", err)
	}
	return w.op(g, k), nil
}

// Check says why generator name has no write k, if it has none.
func (w *Writes) Check(name string, k int64) error {
	g, ok := w.gens[name]
	if !ok {
		return fmt.Errorf("no write %q declared", name)
	}
	return w.checkK(g, k)
}

// checkK says why generator g has no write k, if it has none.
func (w *Writes) checkK(g *writeGen, k int64) error {
	if k < 0 || k > w.maxK {
		return fmt.Errorf("write %q has no write %d (k in [0, %d])", g.decl.Name, k, w.maxK)
	}
	if n := g.count; g.decl.Insert && k >= datagen.EntityBase-n {
		return fmt.Errorf("insert %d of %q: id %d is past the %q id space (%d)", k, g.decl.Name, n+k, g.decl.Entity, datagen.EntityBase)
	}
	return nil
}

// Tx is the tx id of write k of generator name (k checked by Check).
func (w *Writes) Tx(name string, k int64) int64 { return w.tx(w.gens[name], k) }

func (w *Writes) tx(g *writeGen, k int64) int64 {
	return datagen.TxBase + w.ds.TxCount() + k*int64(len(w.names)) + g.slot
}

// Update is what update k of generator name sets, whatever entity it
// lands on: the attribute (by ID) and its value (k checked by Check).
func (w *Writes) Update(name string, k int64) (int32, datagen.Value) {
	g := w.gens[name]
	i := g.choose(k)
	return g.attrs[i].ID, g.values[i].One(k)
}

// op is write k of g (k checked).
func (w *Writes) op(g *writeGen, k int64) Op {
	if g.decl.Insert {
		id := g.count + k
		en, _ := w.ds.Entity(g.decl.Entity)
		op := Op{K: k, Entity: g.decl.Entity, ID: id, E: g.base + id, Tx: w.tx(g, k), Insert: true,
			Values: make([]AttrValues, 0, len(en.Attrs))}
		var scratch []int64
		for _, a := range en.Attrs {
			var vals []datagen.Value
			vals, scratch = w.ds.ValuesAsOf(a.ID, id, -1, nil, scratch)
			cl, _ := a.Type.Class()
			op.Values = append(op.Values, AttrValues{Attr: a.Ident, A: a.ID, Class: cl, Values: vals})
		}
		return op
	}
	i := g.choose(k)
	e := g.target.One(k).Int
	a := &g.attrs[i]
	return Op{K: k, Entity: g.decl.Entity, ID: e - g.base, E: e, Attr: a.Ident, A: a.ID,
		Value: g.values[i].One(k), Tx: w.tx(g, k), Add: g.add}
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
func (w *Writes) Value(name string, n int64, e int64) (datagen.Value, error) {
	g, ok := w.gens[name]
	if !ok {
		return datagen.Value{}, fmt.Errorf("datagen: no write %q declared", name)
	}
	if len(g.attrs) != 1 || g.add {
		return datagen.Value{}, fmt.Errorf("datagen: write %q is not an assignment of one attribute", name)
	}
	for k := min(n, w.maxK+1) - 1; k >= 0; k-- {
		if op := w.op(g, k); op.E == e {
			return op.Value, nil
		}
	}
	vals, _ := w.ds.ValuesAsOf(g.attrs[0].ID, e-g.base, -1, nil, nil)
	if len(vals) == 0 {
		return datagen.Value{}, fmt.Errorf("datagen: entity %d has no %s", e, g.decl.Attr)
	}
	return vals[0], nil
}
