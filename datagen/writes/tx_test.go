package writes_test

import (
	"reflect"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// Write k of a transaction is a pure function of (seed, k): the same
// entities, draws and values every time; a distinct_from step never lands
// on its other step's entity, even over two entities; via "STEP" is that
// step's entity; a transaction has no single-write Op nor a prefix
// journal.
func TestTxOpIsPureAndDistinct(t *testing.T) {
	ds := &datagen.Dataset{Name: "t", Seed: 5, TxSize: 10, Entities: []datagen.Entity{{Name: "c", Count: 2, Attrs: []datagen.Attr{
		{Ident: "c/a", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 9}},
		{Ident: "c/b", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 9}},
	}}}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	hot := datagen.Generator{Kind: datagen.GenZipf, Target: "c", S: 3}
	decl := writes.Decl{Name: "x", Draws: []writes.Draw{{Name: "n", Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 100}}},
		Steps: []writes.Step{
			{Name: "p", Entity: "c", Target: hot, Attr: "c/a", Delta: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 3}},
			{Name: "q", Entity: "c", Via: "p", Attr: "c/b", Value: datagen.Generator{Kind: datagen.GenConst, Const: "7"}},
			{Name: "r", Entity: "c", Target: hot, DistinctFrom: "p", Attr: "c/a", Delta: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 3}},
		}}
	w, err := writes.New(ds, []writes.Decl{decl})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := writes.New(ds, []writes.Decl{decl})
	for k := int64(0); k < 200; k++ {
		op, err := w.TxOp("x", k)
		if err != nil {
			t.Fatal(err)
		}
		op2, _ := again.TxOp("x", k)
		if !reflect.DeepEqual(op, op2) {
			t.Fatalf("write %d differs between two compilations", k)
		}
		p, q, r := op.Steps[0], op.Steps[1], op.Steps[2]
		if q.E != p.E || r.E == p.E {
			t.Fatalf("write %d: p %d, q %d (want p's), r %d (want another)", k, p.E, q.E, r.E)
		}
		if !p.Add || q.Add || q.Value.Int != 7 || p.Value.Int < 1 || p.Value.Int > 3 || op.Draws["n"] < 1 || op.Draws["n"] > 100 {
			t.Fatalf("write %d: %+v", k, op)
		}
		if op.Tx != w.Tx("x", k) {
			t.Fatalf("write %d: tx %d, want %d", k, op.Tx, w.Tx("x", k))
		}
	}
	if _, err := w.Op("x", 0); err == nil {
		t.Error("Op of a transaction")
	}
	if err := w.CommitPrefix(writes.NewJournal(), "x", 3); err == nil {
		t.Error("CommitPrefix of a transaction")
	}
	if !w.IsTx("x") || len(w.Steps("x")) != 3 || !w.Steps("x")[0].Add {
		t.Errorf("Steps = %+v", w.Steps("x"))
	}
}
