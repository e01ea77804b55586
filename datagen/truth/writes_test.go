package truth_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

var stateWrite = writes.Decl{Name: "state_change", Entity: "issue", Attr: "issue/state",
	Value:  datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"closed", "in_progress", "open"}, Weights: []float64{1, 1, 1}},
	Target: datagen.Generator{Kind: datagen.GenZipf, Target: "issue", S: 1.1}}

// Advance is checked against a brute-force recount over every entity with
// the written values laid over the generated ones.
func TestAdvanceMatchesARecountAfterTheWrites(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	w, err := writes.New(ds, []writes.Decl{stateWrite})
	if err != nil {
		t.Fatal(err)
	}
	base, err := truth.Compute(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	priority, _ := ds.ValueFunc("issue", "issue/priority")
	for _, n := range []int64{0, 1, 37, 2000} {
		got, err := truth.Advance(base, w, "state_change", n)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for _, u := range got.Values["assigned"].([]truth.Entry) {
			for _, r := range u.Refs {
				v, _ := w.Value("state_change", n, r.E)
				if r.Fields["issue/state"] != v.Any() {
					t.Errorf("n=%d: assigned ref %d state %v, want %v", n, r.E, r.Fields["issue/state"], v.Any())
				}
			}
		}
		counts := map[string]int64{}
		var openHigh int64
		for id := int64(0); id < datagentest.ScaleXS.Issues; id++ {
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
		for _, e := range got.Values["issue_samples"].([]truth.Entry) {
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
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	reassign := writes.Decl{Name: "reassign", Entity: "issue", Attr: "issue/assignee",
		Value: datagen.Generator{Kind: datagen.GenRef, Target: "user"}, Target: datagen.Generator{Kind: datagen.GenRef, Target: "issue"}}
	w, err := writes.New(ds, []writes.Decl{reassign})
	if err != nil {
		t.Fatal(err)
	}
	base, err := truth.Compute(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := truth.Stale(w, "reassign"); !reflect.DeepEqual(got, []string{"assigned"}) {
		t.Errorf("Stale = %v, want [assigned]", got)
	}
	got, err := truth.Advance(base, w, "reassign", 10)
	if !errors.Is(err, truth.ErrNotAdvanceable) || !strings.Contains(err.Error(), "assigned") {
		t.Fatalf("got %v", err)
	}
	if _, ok := got.Values["assigned"]; ok {
		t.Error("a truth that cannot be followed kept its stale value")
	}
	if !reflect.DeepEqual(got.Values["assigned_mid"], base.Values["assigned_mid"]) {
		t.Error("a truth as of a mark before the writes changed")
	}
}
