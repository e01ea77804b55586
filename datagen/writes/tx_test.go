package writes_test

import (
	"fmt"
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

// TxOpInto into one reused TxOp gives, write after write, what TxOp
// gives (entities followed through a ref, an insert's values of one and
// of many refs, the draws), allocates nothing once its buffers have grown,
// and with values false leaves an insert's values out and nothing else.
func TestTxOpIntoReusesAndMatchesTxOp(t *testing.T) {
	ds := &datagen.Dataset{Name: "t", Seed: 9, TxSize: 10, Entities: []datagen.Entity{
		{Name: "b", Count: 3, Attrs: []datagen.Attr{{Ident: "b/n", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "0"}}}},
		{Name: "c", Count: 50, Attrs: []datagen.Attr{
			{Ident: "c/b", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "b"}},
			{Ident: "c/n", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "0"}},
		}},
		{Name: "h", Count: 0, Attrs: []datagen.Attr{
			{Ident: "h/c", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "c"}},
			{Ident: "h/tags", Type: datagen.TypeRef, Many: true, Gen: datagen.Generator{Kind: datagen.GenSample, Target: "b", MinN: 0, MaxN: 3}},
		}},
	}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	decl := writes.Decl{Name: "x", Draws: []writes.Draw{{Name: "d", Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: -9, Max: 9}}},
		Steps: []writes.Step{
			{Name: "c", Entity: "c", Target: datagen.Generator{Kind: datagen.GenRef, Target: "c"}, Attr: "c/n", Delta: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 3}},
			{Name: "b", Entity: "b", Via: "c.c/b", Attr: "b/n", Delta: datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 3}},
			{Name: "h", Entity: "h", Insert: true},
		}}
	w, err := writes.New(ds, []writes.Decl{decl})
	if err != nil {
		t.Fatal(err)
	}
	// The exported fields, an empty list and none alike.
	exported := func(op writes.TxOp) string { return fmt.Sprintf("%+v", []any{op.K, op.Tx, op.Draws, op.Steps}) }
	var into, bare writes.TxOp
	many := 0
	for k := int64(0); k < 300; k++ {
		want, err := w.TxOp("x", k)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.TxOpInto(&into, "x", k, true); err != nil {
			t.Fatal(err)
		}
		if exported(into) != exported(want) {
			t.Fatalf("write %d: TxOpInto %+v, TxOp %+v", k, into, want)
		}
		many += len(want.Steps[2].Values[1].Values)
		if err := w.TxOpInto(&bare, "x", k, false); err != nil {
			t.Fatal(err)
		}
		want.Steps[2].Values = nil
		if bare.Steps[2].Values = nil; exported(bare) != exported(want) {
			t.Fatalf("write %d without values: %+v, want %+v", k, bare, want)
		}
	}
	if many == 0 {
		t.Fatal("no insert drew a many ref: the test does not reuse their buffers")
	}
	k := int64(0)
	if n := testing.AllocsPerRun(200, func() { k++; _ = w.TxOpInto(&into, "x", k, true) }); n != 0 {
		t.Errorf("TxOpInto allocates %.1f times a write in steady state", n)
	}
}
