package datagen

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

var stateWrite = WriteDecl{Name: "state_change", Entity: "issue", Attr: "issue/state",
	Value:  Generator{Kind: GenWeighted, Choices: []string{"closed", "in_progress", "open"}, Weights: []float64{1, 1, 1}},
	Target: Generator{Kind: GenZipf, Target: "issue", S: 1.1}}

func TestWriteOpsArePureFunctionsOfSeedAndK(t *testing.T) {
	a, err := NewWrites(finished(t, scaleXS, false), []WriteDecl{stateWrite})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewWrites(finished(t, scaleXS, false), []WriteDecl{stateWrite})
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
		if x.Tx != TxBase+a.c.txCount+k || x.Attr != "issue/state" || x.ID < 0 || x.ID >= scaleXS.issues {
			t.Fatalf("write %d: %+v", k, x)
		}
		distinct[x.E] = true
	}
	if len(distinct) < 50 {
		t.Errorf("500 writes touched only %d entities", len(distinct))
	}
}

func TestNewWritesRejectsBadDeclarations(t *testing.T) {
	ds := finished(t, scaleXS, false)
	for _, tc := range []struct {
		name string
		mod  func(*WriteDecl)
		want string
	}{
		{"unknown entity", func(d *WriteDecl) { d.Entity = "nope" }, `entity "nope"`},
		{"attr of another entity", func(d *WriteDecl) { d.Attr = "user/name" }, "belongs to entity"},
		{"unique attr", func(d *WriteDecl) { d.Entity, d.Attr, d.Target.Target = "user", "user/email", "user" }, "not unique"},
		{"many attr", func(d *WriteDecl) { d.Attr = "issue/labels" }, "cardinality one"},
		{"target kind", func(d *WriteDecl) { d.Target = Generator{Kind: GenUniformInt, Min: 0, Max: 3} }, "target must be"},
		{"target entity", func(d *WriteDecl) { d.Target.Target = "user" }, `draws entities of "user"`},
		{"value type", func(d *WriteDecl) { d.Value = Generator{Kind: GenUniformInt, Min: 1, Max: 3} }, "needs type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := stateWrite
			tc.mod(&d)
			_, err := NewWrites(ds, []WriteDecl{d})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// Advance is checked against a brute-force recount over every entity with
// the written values laid over the generated ones.
func TestAdvanceMatchesARecountAfterTheWrites(t *testing.T) {
	ds := finished(t, scaleXS, false)
	w, err := NewWrites(ds, []WriteDecl{stateWrite})
	if err != nil {
		t.Fatal(err)
	}
	base, err := ComputeTruth(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	priority, _ := ds.ValueFunc("issue", "issue/priority")
	for _, n := range []int64{0, 1, 37, 2000} {
		got, err := w.Advance(base, "state_change", n)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for _, u := range got.Values["assigned"].([]Entry) {
			for _, r := range u.Refs {
				v, _ := w.Value("state_change", n, r.E)
				if r.Fields["issue/state"] != v.Any() {
					t.Errorf("n=%d: assigned ref %d state %v, want %v", n, r.E, r.Fields["issue/state"], v.Any())
				}
			}
		}
		counts := map[string]int64{}
		var openHigh int64
		for id := int64(0); id < scaleXS.issues; id++ {
			e, _ := ds.EntityID("issue", id)
			v, err := w.Value("state_change", n, e)
			if err != nil {
				t.Fatal(err)
			}
			counts[v.String()]++
			if v.Str == "open" && priority(id, -1, nil)[0].Int >= 4 {
				openHigh++
			}
		}
		if !reflect.DeepEqual(got.Values["state_counts"], counts) {
			t.Errorf("n=%d: state_counts %v, recount %v", n, got.Values["state_counts"], counts)
		}
		if got.Values["open_high"] != openHigh {
			t.Errorf("n=%d: open_high %v, recount %d", n, got.Values["open_high"], openHigh)
		}
		for _, e := range got.Values["issue_samples"].([]Entry) {
			v, _ := w.Value("state_change", n, e.E)
			if e.Fields["issue/state"] != v.Any() {
				t.Errorf("n=%d: sample %d state %v, want %v", n, e.E, e.Fields["issue/state"], v.Any())
			}
		}
		if !reflect.DeepEqual(got.Values["issue_states_mid"], base.Values["issue_states_mid"]) {
			t.Errorf("n=%d: a truth as of a mark before the writes changed", n)
		}
	}
}

// A write to the ref attribute an inverse truth follows changes who refers
// to whom: the generator cannot follow it, and says so.
func TestAdvanceNamesTruthItCannotFollow(t *testing.T) {
	ds := finished(t, scaleXS, false)
	reassign := WriteDecl{Name: "reassign", Entity: "issue", Attr: "issue/assignee",
		Value: Generator{Kind: GenRef, Target: "user"}, Target: Generator{Kind: GenRef, Target: "issue"}}
	w, err := NewWrites(ds, []WriteDecl{reassign})
	if err != nil {
		t.Fatal(err)
	}
	base, err := ComputeTruth(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Stale("reassign"); !reflect.DeepEqual(got, []string{"assigned"}) {
		t.Errorf("Stale = %v, want [assigned]", got)
	}
	got, err := w.Advance(base, "reassign", 10)
	if !errors.Is(err, ErrNotAdvanceable) || !strings.Contains(err.Error(), "assigned") {
		t.Fatalf("got %v", err)
	}
	if _, ok := got.Values["assigned"]; ok {
		t.Error("a truth that cannot be followed kept its stale value")
	}
	if !reflect.DeepEqual(got.Values["assigned_mid"], base.Values["assigned_mid"]) {
		t.Error("a truth as of a mark before the writes changed")
	}
}
