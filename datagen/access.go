package datagen

import "fmt"

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
