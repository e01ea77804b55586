package datagen

import (
	"sort"
	"testing"
)

// TestFamilyLocate: locating a child by id agrees with walking every
// parent's children in order.
func TestFamilyLocate(t *testing.T) {
	// vans with 0 to 4 routes each: a dependent kind located by parent.
	ds := &Dataset{Name: "fleet", Seed: 7, TxSize: 100, Entities: []Entity{
		{Name: "van", Count: 1000, Attrs: []Attr{{Ident: "van/plate", Type: TypeString, Unique: true, Gen: Generator{Kind: GenSeq, Format: "VAN-%05d"}}}},
		{Name: "route", Parent: "van", PerParent: Generator{Kind: GenUniformInt, Min: 0, Max: 4}, Attrs: []Attr{
			{Ident: "route/van", Type: TypeRef, Gen: Generator{Kind: GenParent}}}},
	}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	f := ds.c.kinds[1].fam
	id := int64(0)
	for p := int64(0); p < f.parentCount; p++ {
		for pos := int64(0); pos < f.children(p); pos++ {
			gp, gpos := f.locate(id)
			if gp != p || gpos != pos {
				t.Fatalf("locate(%d) = (%d, %d), want (%d, %d)", id, gp, gpos, p, pos)
			}
			id++
		}
	}
	if id != ds.Count("route") {
		t.Fatalf("%d children walked, count %d", id, ds.Count("route"))
	}
	ids := []int64{id - 1, 0, id / 2, 7}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	cu := famCursor{f: f}
	for _, x := range ids {
		p1, pos1 := f.locate(x)
		p2, pos2 := cu.at(x)
		if p1 != p2 || pos1 != pos2 {
			t.Fatalf("cursor at %d = (%d, %d), locate (%d, %d)", x, p2, pos2, p1, pos1)
		}
	}
}
