package writes_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// random_bytes is a write's value too: write k's text is a pure function
// of (seed, write, k).
func TestRandomBytesWriteValue(t *testing.T) {
	ds := &datagen.Dataset{Name: "w", Seed: 2, TxSize: 10, Entities: []datagen.Entity{{Name: "user", Count: 20, Attrs: []datagen.Attr{
		{Ident: "user/field0", Type: datagen.TypeString, Gen: datagen.Generator{Kind: datagen.GenRandomBytes, Length: 100}},
	}}}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	decl := writes.Decl{Name: "update", Entity: "user", Attr: "user/field0",
		Value: datagen.Generator{Kind: datagen.GenRandomBytes, Length: 100}, Target: datagen.Generator{Kind: datagen.GenZipf, Target: "user", S: 0.99}}
	w, err := writes.New(ds, []writes.Decl{decl})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := writes.New(ds, []writes.Decl{decl})
	prev := ""
	for k := int64(0); k < 50; k++ {
		op, err := w.Op("update", k)
		if err != nil {
			t.Fatal(err)
		}
		same, _ := again.Op("update", k)
		if v := op.Value.Str; len(v) != 100 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" || v == prev || v != same.Value.Str {
			t.Fatalf("write %d: %q (previous %q, again %q)", k, v, prev, same.Value.Str)
		}
		prev = op.Value.Str
	}
}

var (
	issueInsert = writes.Decl{Name: "new_issue", Entity: "issue", Insert: true}
	userInsert  = writes.Decl{Name: "new_user", Entity: "user", Insert: true}
)

var stateWrite = writes.Decl{Name: "state_change", Entity: "issue", Attr: "issue/state",
	Value:  datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"closed", "in_progress", "open"}, Weights: []float64{1, 1, 1}},
	Target: datagen.Generator{Kind: datagen.GenZipf, Target: "issue", S: 1.1}}

func itoa(n int64) string { return datagen.Value{Type: datagen.TypeLong, Int: n}.String() }

func TestWriteOpsArePureFunctionsOfSeedAndK(t *testing.T) {
	a, err := writes.New(datagentest.Finished(t, datagentest.ScaleXS, false), []writes.Decl{stateWrite})
	if err != nil {
		t.Fatal(err)
	}
	b, err := writes.New(datagentest.Finished(t, datagentest.ScaleXS, false), []writes.Decl{stateWrite})
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int64]bool{}
	for k := int64(0); k < 500; k++ {
		x, _ := a.Op("state_change", k)
		y, _ := b.Op("state_change", k)
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("write %d differs: %+v vs %+v", k, x, y)
		}
		if x.Tx != datagen.TxBase+a.Dataset().TxCount()+k || x.Attr != "issue/state" || x.ID < 0 || x.ID >= datagentest.ScaleXS.Issues {
			t.Fatalf("write %d: %+v", k, x)
		}
		distinct[x.E] = true
	}
	if len(distinct) < 50 {
		t.Errorf("500 writes touched only %d entities", len(distinct))
	}
}

func TestNewWritesRejectsBadDeclarations(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	for _, tc := range []struct {
		name string
		mod  func(*writes.Decl)
		want string
	}{
		{"unknown entity", func(d *writes.Decl) { d.Entity = "nope" }, `entity "nope"`},
		{"attr of another entity", func(d *writes.Decl) { d.Attr = "user/name" }, "belongs to entity"},
		{"unique attr", func(d *writes.Decl) { d.Entity, d.Attr, d.Target.Target = "user", "user/email", "user" }, "not unique"},
		{"many attr", func(d *writes.Decl) { d.Attr = "issue/labels" }, "cardinality one"},
		{"target kind", func(d *writes.Decl) { d.Target = datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 3} }, "target must be"},
		{"target entity", func(d *writes.Decl) { d.Target.Target = "user" }, `draws entities of "user"`},
		{"value type", func(d *writes.Decl) { d.Value = datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 3} }, "needs type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := stateWrite
			tc.mod(&d)
			_, err := writes.New(ds, []writes.Decl{d})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestInsertOpsArePureFunctionsOfSeedAndK(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, true)
	a, err := writes.New(ds, []writes.Decl{stateWrite, userInsert})
	if err != nil {
		t.Fatal(err)
	}
	b, err := writes.New(datagentest.Finished(t, datagentest.ScaleXS, true), []writes.Decl{stateWrite, userInsert})
	if err != nil {
		t.Fatal(err)
	}
	email, _ := ds.ValueFunc("user", "user/email")
	emails := map[string]bool{}
	for id := int64(0); id < datagentest.ScaleXS.Users; id++ {
		emails[email(id, -1, nil)[0].Str] = true
	}
	for k := int64(0); k < 100; k++ {
		x, err := a.Op("new_user", k)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := b.Op("new_user", k)
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("insert %d differs: %+v vs %+v", k, x, y)
		}
		id := datagentest.ScaleXS.Users + k
		if !x.Insert || x.ID != id || x.E != 1*datagen.EntityBase+id || x.Tx != datagen.TxBase+a.Dataset().TxCount()+2*k+1 {
			t.Fatalf("insert %d: %+v", k, x)
		}
		if e, err := ds.EntityID("user", id); err != nil || e != x.E {
			t.Fatalf("EntityID(user, %d) = %d, %v, want %d", id, e, err, x.E)
		}
		if len(x.Values) != 2 || x.Values[0].Attr != "user/email" || x.Values[0].A != 1 || x.Values[0].Class != datagen.ClassText {
			t.Fatalf("insert %d values: %+v", k, x.Values)
		}
		for _, av := range x.Values {
			vf, _ := ds.ValueFunc("user", av.Attr)
			if got := vf(id, -1, nil); !reflect.DeepEqual(got, av.Values) {
				t.Fatalf("insert %d %s: ValueFunc %v, op %v", k, av.Attr, got, av.Values)
			}
			if got := vf(id, datagen.TxBase+ds.TxCount(), nil); len(got) != 0 {
				t.Fatalf("insert %d %s has values as of a tx: %v", k, av.Attr, got)
			}
		}
		// The seq key continues the loaded sequence, so it stays unique.
		if e := x.Values[0].Values[0].Str; emails[e] || e != "user"+itoa(id)+"@example.com" {
			t.Fatalf("insert %d: email %q repeats or breaks the sequence", k, e)
		}
		emails[x.Values[0].Values[0].Str] = true
	}
	// Issues carry a cardinality-many ref sample.
	w, _ := writes.New(ds, []writes.Decl{issueInsert})
	for k := int64(0); k < 50; k++ {
		op, _ := w.Op("new_issue", k)
		if op.Tx != datagen.TxBase+w.Dataset().TxCount()+k {
			t.Fatalf("insert %d of the only generator: tx %d", k, op.Tx)
		}
		for _, av := range op.Values {
			if av.Attr == "issue/labels" && (len(av.Values) > 3 || !sort.SliceIsSorted(av.Values, func(i, j int) bool { return av.Values[i].Int < av.Values[j].Int })) {
				t.Fatalf("insert %d labels %v", k, av.Values)
			}
		}
	}
}

func TestWritesOfSeveralGeneratorsNeverShareATx(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	w, err := writes.New(ds, []writes.Decl{stateWrite, issueInsert, userInsert})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	for _, name := range w.Names() {
		for k := int64(0); k < 200; k++ {
			op, err := w.Op(name, k)
			if err != nil {
				t.Fatal(err)
			}
			if prev, dup := seen[op.Tx]; dup {
				t.Fatalf("tx %d: %s write %d and %s", op.Tx, name, k, prev)
			}
			seen[op.Tx] = name
			if op.Tx <= datagen.TxBase+ds.TxCount()-1 {
				t.Fatalf("%s write %d: tx %d inside the load", name, k, op.Tx)
			}
		}
	}
	if _, err := w.Op("new_user", -1); err == nil {
		t.Error("write -1: no error")
	}
	if _, err := w.Op("new_user", datagen.EntityBase); err == nil {
		t.Error("an insert past the id space: no error")
	}
}

func TestNewWritesRejectsBadInsertsAndUpdates(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	fleet := datagentest.FinishedFleet(t, 20)
	var parent, child string
	for _, en := range fleet.Entities {
		if en.Parent != "" {
			parent, child = en.Parent, en.Name
			break
		}
	}
	empty := &datagen.Dataset{Name: "e", Seed: 1, TxSize: 10, Entities: []datagen.Entity{
		{Name: "none", Count: 0, Attrs: []datagen.Attr{{Ident: "none/x", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "1"}}}},
		{Name: "pointer", Count: 0, Attrs: []datagen.Attr{{Ident: "pointer/to", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "none"}}}},
	}}
	if err := empty.Finish(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ds   *datagen.Dataset
		d    writes.Decl
		want string
	}{
		{"insert with attr", ds, writes.Decl{Name: "x", Entity: "user", Insert: true, Attr: "user/name"}, "belong to updates"},
		{"insert with target", ds, writes.Decl{Name: "x", Entity: "user", Insert: true, Target: datagen.Generator{Kind: datagen.GenRef, Target: "user"}}, "belong to updates"},
		{"insert of a child", fleet, writes.Decl{Name: "x", Entity: child, Insert: true}, "has a parent"},
		{"insert of a parent", fleet, writes.Decl{Name: "x", Entity: parent, Insert: true}, "is the parent of"},
		{"insert with an empty ref target", empty, writes.Decl{Name: "x", Entity: "pointer", Insert: true}, "has no entities"},
		{"attr and attrs", ds, writes.Decl{Name: "x", Entity: "issue", Attr: "issue/state", Attrs: []string{"issue/priority"}, Target: stateWrite.Target}, "not both"},
		{"neither", ds, writes.Decl{Name: "x", Entity: "issue", Target: stateWrite.Target}, "needs attr or attrs"},
		{"attrs twice", ds, writes.Decl{Name: "x", Entity: "issue", Attrs: []string{"issue/state", "issue/state"}, Target: stateWrite.Target}, "twice"},
		{"attrs of another entity", ds, writes.Decl{Name: "x", Entity: "issue", Attrs: []string{"issue/state", "user/name"}, Target: stateWrite.Target}, "belongs to entity"},
		{"redraw of a seq", ds, writes.Decl{Name: "x", Entity: "issue", Attr: "issue/title", Target: stateWrite.Target}, "cannot redraw"},
		{"value of the wrong type for one of attrs", ds, writes.Decl{Name: "x", Entity: "issue", Attrs: []string{"issue/state", "issue/priority"},
			Value: stateWrite.Value, Target: stateWrite.Target}, "is not a long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writes.New(tc.ds, []writes.Decl{tc.d})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
