package datagen_test

import (
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
)

func TestFinishErrors(t *testing.T) {
	issue := func(ds *datagen.Dataset) *datagen.Entity { return &ds.Entities[2] }
	attr := func(ds *datagen.Dataset, ident string) *datagen.Attr {
		for k := range ds.Entities {
			for i := range ds.Entities[k].Attrs {
				if ds.Entities[k].Attrs[i].Ident == ident {
					return &ds.Entities[k].Attrs[i]
				}
			}
		}
		panic("no attr " + ident)
	}
	tests := []struct {
		name   string
		mutate func(ds *datagen.Dataset)
		want   string
	}{
		{"tx size", func(ds *datagen.Dataset) { ds.TxSize = 0 }, "tx_size 0"},
		{"duplicate entity", func(ds *datagen.Dataset) { ds.Entities[1].Name = "user" }, `entity "user": declared twice`},
		{"empty entity name", func(ds *datagen.Dataset) { ds.Entities[1].Name = "" }, "entity #2: empty name"},
		{"negative count", func(ds *datagen.Dataset) { issue(ds).Count = -1 }, `entity "issue": count -1 out of range`},
		{"duplicate ident", func(ds *datagen.Dataset) { attr(ds, "label/name").Ident = "user/email" },
			`entity "label" attr "user/email": ident already declared by entity "user"`},
		{"unknown type", func(ds *datagen.Dataset) { attr(ds, "issue/title").Type = "text" }, `unknown value type "text"`},
		{"zipf target", func(ds *datagen.Dataset) { attr(ds, "issue/assignee").Gen.Target = "usr" },
			`entity "issue" attr "issue/assignee": zipf target "usr" is not an entity`},
		{"zipf exponent", func(ds *datagen.Dataset) { attr(ds, "issue/assignee").Gen.S = 0 }, "zipf exponent 0 must be positive and finite"},
		{"zipf type", func(ds *datagen.Dataset) { attr(ds, "issue/assignee").Type = datagen.TypeLong }, "zipf generator needs type ref"},
		{"ref target", func(ds *datagen.Dataset) {
			attr(ds, "issue/assignee").Gen = datagen.Generator{Kind: datagen.GenRef, Target: "nobody"}
		}, `ref target "nobody" is not an entity`},
		{"empty target", func(ds *datagen.Dataset) { ds.Entities[0].Count = 0 }, `zipf target "user" has no entities`},
		{"many without sample", func(ds *datagen.Dataset) { attr(ds, "issue/priority").Many = true },
			`attr "issue/priority": cardinality many needs a sample generator`},
		{"sample without many", func(ds *datagen.Dataset) { attr(ds, "issue/labels").Many = false },
			`attr "issue/labels": sample generator needs cardinality many`},
		{"sample too large", func(ds *datagen.Dataset) { attr(ds, "issue/labels").Gen.MaxN = 51 }, "sample of up to 51 distinct"},
		{"sample range", func(ds *datagen.Dataset) { attr(ds, "issue/labels").Gen.MinN = 4 }, "sample size range [4, 3] is invalid"},
		{"unique needs seq", func(ds *datagen.Dataset) { attr(ds, "issue/priority").Unique = true },
			"unique attribute needs a seq generator"},
		{"seq type", func(ds *datagen.Dataset) { attr(ds, "issue/title").Type = datagen.TypeLong }, "seq generator needs type string or keyword"},
		{"seq no verb", func(ds *datagen.Dataset) { attr(ds, "issue/title").Gen.Format = "Issue" }, "needs exactly one %d"},
		{"seq two verbs", func(ds *datagen.Dataset) { attr(ds, "issue/title").Gen.Format = "%d-%d" }, "more than one %d"},
		{"seq other verb", func(ds *datagen.Dataset) { attr(ds, "issue/title").Gen.Format = "%s %d" }, "unsupported verb %s"},
		{"uniform type", func(ds *datagen.Dataset) { attr(ds, "issue/priority").Type = datagen.TypeDouble }, "uniform generator needs type long or instant"},
		{"uniform range", func(ds *datagen.Dataset) { attr(ds, "issue/priority").Gen.Min = 9 }, "uniform range [9, 5] is empty"},
		{"uniform_float type", func(ds *datagen.Dataset) {
			attr(ds, "issue/priority").Gen = datagen.Generator{Kind: datagen.GenUniformFloat, FMin: 0, FMax: 1}
		}, "uniform_float generator needs type double"},
		{"weighted parse", func(ds *datagen.Dataset) {
			a := attr(ds, "issue/priority")
			a.Gen = datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"1", "two"}, Weights: []float64{1, 1}}
		}, `weighted choice: "two" is not a long`},
		{"weighted lengths", func(ds *datagen.Dataset) { attr(ds, "issue/state").Gen.Weights = []float64{1} },
			"weighted needs as many weights as choices"},
		{"weighted negative", func(ds *datagen.Dataset) { attr(ds, "issue/state").Gen.Weights[0] = -1 },
			`weighted choice "closed": weight -1 must be finite and >= 0`},
		{"weighted zero sum", func(ds *datagen.Dataset) { attr(ds, "issue/state").Gen.Weights = []float64{0, 0, 0} },
			"weights must have a positive finite sum"},
		{"const parse", func(ds *datagen.Dataset) {
			attr(ds, "issue/priority").Gen = datagen.Generator{Kind: datagen.GenConst, Const: "x"}
		}, `const: "x" is not a long`},
		{"chance type", func(ds *datagen.Dataset) {
			attr(ds, "issue/priority").Gen = datagen.Generator{Kind: datagen.GenChance, P: 0.5}
		}, "chance generator needs type boolean"},
		{"instant type", func(ds *datagen.Dataset) { attr(ds, "issue/created").Type = datagen.TypeLong }, "instant generator needs type instant"},
		{"unknown generator", func(ds *datagen.Dataset) { attr(ds, "issue/priority").Gen.Kind = "gauss" }, `unknown generator "gauss"`},
		{"history entity", func(ds *datagen.Dataset) { ds.History[0].Entity = "issues" }, `history "state_changes": entity "issues" is not an entity`},
		{"history attr", func(ds *datagen.Dataset) { ds.History[0].Attr = "issue/status" }, `attr "issue/status" is not an attribute`},
		{"history attr kind", func(ds *datagen.Dataset) { ds.History[0].Attr = "user/name" }, `attr "user/name" belongs to entity "user", not "issue"`},
		{"history many", func(ds *datagen.Dataset) { ds.History[0].Attr = "issue/labels" }, "has cardinality many"},
		{"history seq", func(ds *datagen.Dataset) { ds.History[0].Attr = "issue/title" }, "uses a seq generator"},
		{"history fixed", func(ds *datagen.Dataset) {
			g := &attr(ds, "issue/priority").Gen
			g.Min, g.Max = 3, 3
			ds.History[0].Attr = "issue/priority"
		}, "can only take one value"},
		{"history fraction", func(ds *datagen.Dataset) { ds.History[0].Fraction = 0 }, "fraction 0 must be in (0, 1]"},
		{"history fraction big", func(ds *datagen.Dataset) { ds.History[0].Fraction = 1.5 }, "fraction 1.5 must be in (0, 1]"},
		{"history files", func(ds *datagen.Dataset) { ds.History[0].Files = 0 }, "files 0 must be in [1,"},
		{"history reserved", func(ds *datagen.Dataset) { ds.History[0].Name = "initial"; ds.Marks = nil }, "invalid name"},
		{"mark after", func(ds *datagen.Dataset) { ds.Marks[0].After = "later" }, `mark "t_mid": after "later" is neither "initial" nor a history`},
		{"mark before_last", func(ds *datagen.Dataset) { ds.Marks[1].BeforeLast = "initial" }, `mark "t_since": before_last "initial" is not a history`},
		{"mark both", func(ds *datagen.Dataset) { ds.Marks[1].After = "initial" }, "needs exactly one of after and before_last"},
		{"mark duplicate", func(ds *datagen.Dataset) { ds.Marks[1].Name = "t_mid" }, `mark "t_mid": declared twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := datagentest.IssueTracker(datagentest.ScaleXS, false)
			tt.mutate(ds)
			err := ds.Finish()
			if err == nil {
				t.Fatalf("Finish succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestFinishAssignsIDsAndIsIdempotent(t *testing.T) {
	ds := datagentest.IssueTracker(datagentest.ScaleXS, true)
	for i := 0; i < 2; i++ {
		if err := ds.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	var want int32
	for _, en := range ds.Entities {
		for _, a := range en.Attrs {
			want++
			if a.ID != want {
				t.Errorf("%s: ID %d, want %d", a.Ident, a.ID, want)
			}
		}
	}
	for i, a := range ds.Attrs() {
		if a.ID != int32(i+1) {
			t.Errorf("Attrs()[%d].ID = %d", i, a.ID)
		}
	}
	if a, ok := ds.Attr("issue/labels"); !ok || a.Entity != "issue" || a.Class != datagen.ClassInt || !a.Many {
		t.Errorf("Attr(issue/labels) = %+v, %v", a, ok)
	}
}

func TestUnfinished(t *testing.T) {
	ds := datagentest.IssueTracker(datagentest.ScaleXS, false)
	if ds.TxCount() != 0 || ds.Count("issue") != 0 || ds.Attrs() != nil {
		t.Error("unfinished dataset reports sizes")
	}
	if err := ds.Stream(t.Context(), 0, 0, func(*datagen.Tx) error { return nil }); err == nil {
		t.Error("Stream before Finish: no error")
	}
	if _, err := truth.Compute(t.Context(), ds, 1); err == nil {
		t.Error("truth.Compute before Finish: no error")
	}
	var nilDS *datagen.Dataset
	if err := nilDS.Finish(); err == nil {
		t.Error("nil Finish: no error")
	}
}

func TestLayout(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	// users 1 tx, labels 1 tx, issues 26 txs; two history files of 6500
	// issues, 13 txs each.
	if got := ds.TxCount(); got != 54 {
		t.Fatalf("TxCount = %d, want 54", got)
	}
	if tx, _ := ds.MarkTx("t_mid"); tx != datagen.TxBase+27 {
		t.Errorf("t_mid = %d, want %d", tx, datagen.TxBase+27)
	}
	if tx, _ := ds.MarkTx("t_since"); tx != datagen.TxBase+40 {
		t.Errorf("t_since = %d, want %d", tx, datagen.TxBase+40)
	}
	if _, ok := ds.MarkTx("nope"); ok {
		t.Error("unknown mark found")
	}
	want := []datagen.Phase{
		{Name: "initial", Entity: "user", EndID: 200, Start: 0, End: 1},
		{Name: "initial", Entity: "label", EndID: 50, Start: 1, End: 2},
		{Name: "initial", Entity: "issue", EndID: 13000, Start: 2, End: 28},
		{Name: "state_changes", Entity: "issue", Attr: "issue/state", File: 0, FirstID: 0, EndID: 6500, Start: 28, End: 41},
		{Name: "state_changes", Entity: "issue", Attr: "issue/state", File: 1, FirstID: 6500, EndID: 13000, Start: 41, End: 54},
	}
	got := ds.Phases()
	if len(got) != len(want) {
		t.Fatalf("Phases = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	e, err := ds.EntityID("issue", 7)
	if err != nil || e != 3*datagen.EntityBase+7 {
		t.Errorf("EntityID = %d, %v", e, err)
	}
	if e, err := ds.EntityID("issue", 13000); err != nil || e != 3*datagen.EntityBase+13000 {
		t.Errorf("EntityID of the first inserted id = %d, %v", e, err)
	}
	if _, err := ds.EntityID("issue", datagen.EntityBase); err == nil {
		t.Error("EntityID out of range: no error")
	}
	if err := ds.Stream(t.Context(), 3, 2, func(*datagen.Tx) error { return nil }); err == nil {
		t.Error("Stream with from > to: no error")
	}
	if err := ds.Stream(t.Context(), 0, 55, func(*datagen.Tx) error { return nil }); err == nil {
		t.Error("Stream beyond the end: no error")
	}
}

// TestHistoryOrderAndProcessErrors: histories sharing an attribute need
// an explicit order, and a process needs consistent states.
func TestHistoryOrderAndProcessErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(ds *datagen.Dataset)
		want string
	}{
		{"second history without after", func(ds *datagen.Dataset) { ds.History[2].After = "" },
			`history "recount_again": attr "stop/parcels" is also changed by history "recount": set after = "recount"`},
		{"time attribute shared without after", func(ds *datagen.Dataset) {
			ds.History = append(ds.History, datagen.History{Name: "touch", Entity: "route", Attr: "route/starts", Fraction: 0.1, Files: 1, Time: "route/updated", DelayMin: 1, DelayMax: 2})
		}, `history "touch": attr "route/updated" is also changed by history "progress"`},
		{"after a later history", func(ds *datagen.Dataset) { ds.History[1].After = "recount_again" },
			`history "recount": after "recount_again" is not a history declared before it`},
		{"fractions per step", func(ds *datagen.Dataset) { ds.History[0].Fractions = []float64{0.5} },
			`history "progress": fractions needs one fraction per step (2), got 1`},
		{"state of the wrong type", func(ds *datagen.Dataset) {
			ds.History[2] = datagen.History{Name: "x", Entity: "stop", Attr: "stop/parcels", States: []string{"1", "many"}, Fractions: []float64{1}, Files: 1, After: "recount"}
		}, `history "x": states: "many" is not a long`},
		{"time not an instant", func(ds *datagen.Dataset) { ds.History[0].Time = "route/day" },
			`history "progress": time "route/day" must be a cardinality-one instant`},
		{"parent declared later", func(ds *datagen.Dataset) { ds.Entities[2].Parent = "stop" },
			`entity "route": parent "stop" is not an entity declared before it`},
		{"seq padding without width", func(ds *datagen.Dataset) { ds.Entities[1].Attrs[0].Gen.Format = "VAN-%0d" },
			`seq format "VAN-%0d": %0 needs a width`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := datagentest.Fleet(50)
			tt.edit(ds)
			err := ds.Finish()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Finish error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
