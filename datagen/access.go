package datagen

import (
	"errors"
	"fmt"
)

// EntityID returns the entity id of id of kind: (k+1)*EntityBase + id.
// Ids from Count(kind) on are entities a write inserts after the load;
// every id below EntityBase has one.
func (ds *Dataset) EntityID(kind string, id int64) (int64, error) {
	c, err := ds.compiled()
	if err != nil {
		return 0, err
	}
	k, ok := c.byKind[kind]
	if !ok {
		return 0, fmt.Errorf("datagen: unknown entity %q", kind)
	}
	if id < 0 || id >= EntityBase {
		return 0, fmt.Errorf("datagen: entity %q id %d out of range [0, %d)", kind, id, EntityBase)
	}
	return c.kinds[k].base + id, nil
}

// Count is the number of entities of kind the load creates (0 for an
// unknown kind or before Finish); entities inserted by writes come after
// them, from id Count on.
func (ds *Dataset) Count(kind string) int64 {
	if ds == nil || ds.c == nil {
		return 0
	}
	k, ok := ds.c.byKind[kind]
	if !ok {
		return 0
	}
	return ds.c.kinds[k].count
}

// Entity returns the declaration of an entity kind.
func (ds *Dataset) Entity(name string) (*Entity, bool) {
	if ds == nil {
		return nil, false
	}
	for i := range ds.Entities {
		if ds.Entities[i].Name == name {
			return &ds.Entities[i], true
		}
	}
	return nil, false
}

// Attrs returns every attribute in ID order (ID i at index i-1), with the
// kind that owns it. Empty before Finish.
func (ds *Dataset) Attrs() []AttrInfo {
	if ds == nil || ds.c == nil {
		return nil
	}
	out := make([]AttrInfo, len(ds.c.attrs))
	for i := range ds.c.attrs {
		out[i] = ds.c.attrs[i].info
	}
	return out
}

// Attr returns one attribute by ident.
func (ds *Dataset) Attr(ident string) (AttrInfo, bool) {
	if ds == nil || ds.c == nil {
		return AttrInfo{}, false
	}
	i, ok := ds.c.byIdent[ident]
	if !ok {
		return AttrInfo{}, false
	}
	return ds.c.attrs[i].info, true
}

// ValueFunc returns a function giving the values of attribute attr of
// entity kind for an id as of a tx id (asOfTx < 0: current, after all
// history), appended to dst. Cardinality-many values come sorted by
// entity id. An id out of range, or an entity not yet created at asOfTx,
// has no values. An id from Count(kind) on is an entity a write may
// insert: asked for current values (asOfTx < 0) it has its generated
// values (no history applies to it), and none as of any tx (ValueFunc
// does not know whether it committed). The function is safe for
// concurrent use.
func (ds *Dataset) ValueFunc(kind, attr string) (func(id int64, asOfTx int64, dst []Value) []Value, error) {
	c, err := ds.compiled()
	if err != nil {
		return nil, err
	}
	ai, ok := c.byIdent[attr]
	if !ok {
		return nil, fmt.Errorf("datagen: unknown attribute %q", attr)
	}
	if got := c.attrs[ai].info.Entity; got != kind {
		return nil, fmt.Errorf("datagen: attribute %q belongs to entity %q, not %q", attr, got, kind)
	}
	return func(id, asOfTx int64, dst []Value) []Value {
		var scratch [8]int64
		dst, _ = c.valuesAsOf(ai, id, asOfTx, dst, scratch[:0])
		return dst
	}, nil
}

// valuesAsOf appends the values of attribute ai for id as of tx id asOf
// (< 0: current).
func (c *compiled) valuesAsOf(ai int, id, asOf int64, dst []Value, scratch []int64) ([]Value, []int64) {
	a := &c.attrs[ai]
	if kc := &c.kinds[a.kind]; id < 0 || id >= kc.count {
		if id < kc.count || id >= EntityBase || asOf >= 0 || kc.noInsert != "" {
			return dst, scratch
		}
		// An entity a write inserts: drawn as the load would draw it.
		return a.gen.values(id, verWord(0, 0), dst, scratch)
	}
	if asOf >= 0 && asOf < TxBase+c.initialTx(a.kind, id) {
		return dst, scratch
	}
	if a.info.Many {
		return a.gen.values(id, 0, dst, scratch)
	}
	v, _ := c.walk(ai, id, -1, asOf)
	return append(dst, v), scratch
}

// ValuesAsOf is ValueFunc's function for the attribute with ID a, for
// callers scanning many ids of many attributes: it appends the values to
// dst and reuses scratch (returned grown) for cardinality-many draws.
// Only for a finished dataset (Ready) and an attribute ID it has.
func (ds *Dataset) ValuesAsOf(a int32, id, asOfTx int64, dst []Value, scratch []int64) ([]Value, []int64) {
	return ds.c.valuesAsOf(int(a)-1, id, asOfTx, dst, scratch)
}

// ChangedAfter reports whether attribute a of the entity with id (of the
// attribute's kind) has a datom in a tx after tx id since: its initial
// assert or a history's change. Only for a finished dataset (Ready).
func (ds *Dataset) ChangedAfter(a int32, id, since int64) bool {
	return ds.c.changedAfter(int(a)-1, id, since)
}

// RefKind is the entity kind whose entity ids the values of ref
// attribute ident are ("", false for any other attribute).
func (ds *Dataset) RefKind(ident string) (string, bool) {
	if ds == nil || ds.c == nil {
		return "", false
	}
	i, ok := ds.c.byIdent[ident]
	if !ok || ds.c.attrs[i].target < 0 {
		return "", false
	}
	return ds.c.kinds[ds.c.attrs[i].target].name, true
}

// InsertProblem says why a write cannot insert entities of kind (ids
// from its count on, generated as the load would generate them), or ""
// when it can. Only for a finished dataset (Ready).
func (ds *Dataset) InsertProblem(kind string) string {
	k, ok := ds.c.byKind[kind]
	if !ok {
		return fmt.Sprintf("%q is not an entity", kind)
	}
	return ds.c.kinds[k].noInsert
}

// CompiledGenerator is a generator compiled outside the dataset's
// attributes (a write's value or target): its draws are those an attribute
// with its ident and generator would have.
type CompiledGenerator struct{ g genComp }

// CompileGenerator compiles the generator of attr, an attribute of entity
// kind attr.Entity that the dataset need not declare. Its draws come from the
// stream (seed, attr.Entity, attr.Ident). All problems are returned
// together, each worded as Finish words an attribute's.
func (ds *Dataset) CompileGenerator(attr AttrInfo) (*CompiledGenerator, error) {
	c, err := ds.compiled()
	if err != nil {
		return nil, err
	}
	k, ok := c.byKind[attr.Entity]
	if !ok {
		return nil, fmt.Errorf("datagen: unknown entity %q", attr.Entity)
	}
	a := attrComp{info: attr, kind: k}
	var el errList
	compileGen(ds, c, &a, &el)
	if len(el.errs) > 0 {
		return nil, errors.Join(el.errs...)
	}
	return &CompiledGenerator{g: a.gen}, nil
}

// One is the generator's value for id (version 0).
func (g *CompiledGenerator) One(id int64) Value { return g.g.one(id, 0) }

// Ready says why the dataset cannot be generated from (Finish not called,
// or the definition it last checked did not validate); nil when it can.
func (ds *Dataset) Ready() error {
	_, err := ds.compiled()
	return err
}
