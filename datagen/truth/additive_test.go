package truth_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// bank is a small ledger: branches, tellers of a branch, accounts of a
// branch, each with a long balance, and a history kind that transactions
// insert into.
func bank(t *testing.T) *datagen.Dataset {
	t.Helper()
	ds := &datagen.Dataset{Name: "bank", Seed: 3, TxSize: 50,
		Entities: []datagen.Entity{
			{Name: "branch", Count: 2, Attrs: []datagen.Attr{
				{Ident: "branch/id", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "b%d"}},
				{Ident: "branch/balance", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "0"}}}},
			{Name: "account", Count: 40, Attrs: []datagen.Attr{
				{Ident: "account/id", Type: datagen.TypeString, Unique: true, Gen: datagen.Generator{Kind: datagen.GenSeq, Format: "a%d"}},
				{Ident: "account/branch", Type: datagen.TypeRef, Gen: datagen.Generator{Kind: datagen.GenRef, Target: "branch"}},
				{Ident: "account/balance", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 1000}}}},
			{Name: "history", Count: 0, Attrs: []datagen.Attr{
				{Ident: "history/note", Type: datagen.TypeLong, Gen: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 9}}}},
		},
		Truth: []datagen.TruthDecl{
			{Name: "total", Kind: datagen.TruthSum, Attr: "account/balance"},
			{Name: "by_branch", Kind: datagen.TruthSum, Attr: "account/balance", By: "account/branch"},
			{Name: "branch_total", Kind: datagen.TruthSum, Attr: "branch/balance"},
			{Name: "rich", Kind: datagen.TruthCount, Entity: "account", Where: []datagen.Filter{{Attr: "account/balance", Op: "ge", Value: "500"}}},
			{Name: "accounts", Kind: datagen.TruthSample, Entity: "account", N: 40, Attrs: []string{"account/id", "account/balance"}},
			{Name: "histories", Kind: datagen.TruthCount, Entity: "history"},
			{Name: "top", Kind: datagen.TruthMax, Attr: "account/balance"},
		}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// balances recounts every account's balance and the per-entity truths
// from a map of deltas laid over the loaded values.
func recount(t *testing.T, ds *datagen.Dataset, delta map[int64]int64) (total int64, rich int64, per map[int64]int64) {
	t.Helper()
	bal, _ := ds.ValueFunc("account", "account/balance")
	per = map[int64]int64{}
	for id := int64(0); id < ds.Count("account"); id++ {
		e, _ := ds.EntityID("account", id)
		v := bal(id, -1, nil)[0].Int + delta[e]
		per[e] = v
		total += v
		if v >= 500 {
			rich++
		}
	}
	return total, rich, per
}

func TestAdditiveWriteTruthIsLoadedPlusCommittedDeltas(t *testing.T) {
	ds := bank(t)
	dep := writes.Decl{Name: "deposit", Entity: "account", Attr: "account/balance",
		Delta:  datagen.Generator{Kind: datagen.GenUniformInt, Min: -300, Max: 300},
		Target: datagen.Generator{Kind: datagen.GenZipf, Target: "account", S: 1.1}}
	w, err := writes.New(ds, []writes.Decl{dep})
	if err != nil {
		t.Fatal(err)
	}
	if got := truth.Stale(w, "deposit"); !reflect.DeepEqual(got, []string{"top"}) {
		t.Errorf("Stale = %v, want [top] (a max cannot follow additions; the sums can)", got)
	}
	base, err := truth.Compute(context.Background(), ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Commit an arbitrary set of ks in a scrambled order: additions commute.
	j := writes.NewJournal()
	delta := map[int64]int64{}
	for _, k := range []int64{9, 2, 31, 5, 5, 17, 0, 44, 3} {
		op, err := w.Op("deposit", k)
		if err != nil {
			t.Fatal(err)
		}
		if !op.Add {
			t.Fatal("op of an additive write is not Add")
		}
		if k != 5 || delta[-1] == 0 { // k 5 recorded twice counts once
			delta[op.E] += op.Value.Int
		}
		if k == 5 {
			delta[-1] = 1
		}
		j.Commit("deposit", k, op.E)
	}
	delete(delta, -1)
	got, _ := truth.AdvanceJournal(base, w, j)
	total, rich, per := recount(t, ds, delta)
	if got.Values["total"] != total {
		t.Errorf("total = %v, recount %d", got.Values["total"], total)
	}
	if got.Values["rich"] != rich {
		t.Errorf("rich = %v, recount %d", got.Values["rich"], rich)
	}
	for _, e := range got.Values["accounts"].([]truth.Entry) {
		if e.Fields["account/balance"] != per[e.E] {
			t.Errorf("account %d balance %v, want %d", e.E, e.Fields["account/balance"], per[e.E])
		}
	}
	byBranch := got.Values["by_branch"].(map[string]any)
	var sum int64
	for _, v := range byBranch {
		sum += v.(int64)
	}
	if sum != total {
		t.Errorf("by_branch sums to %d, total %d", sum, total)
	}
}

// delta is a run-time delta: the amount the engine computed, taken from
// the journal.
type fixedExpr struct{}

func (fixedExpr) Int(draws map[string]int64, read map[string]any) (int64, error) {
	return -draws["amount"], nil
}
func (fixedExpr) Bool(map[string]int64, map[string]any) (bool, error) { return false, nil }

func TestTransactionTruthAdvancesByAllStepsOrNone(t *testing.T) {
	ds := bank(t)
	amount := datagen.Generator{Kind: datagen.GenUniformInt, Min: 1, Max: 100}
	transfer := writes.Decl{Name: "transfer", Draws: []writes.Draw{{Name: "amount", Gen: amount}},
		Steps: []writes.Step{
			{Name: "debit", Entity: "account", Target: datagen.Generator{Kind: datagen.GenRef, Target: "account"}, Attr: "account/balance", DeltaExpr: fixedExpr{}},
			{Name: "credit", Entity: "account", Target: datagen.Generator{Kind: datagen.GenRef, Target: "account"}, DistinctFrom: "debit", Attr: "account/balance", DeltaExpr: fixedExpr{}},
			{Name: "branch", Entity: "branch", Via: "credit.account/branch", Attr: "branch/balance", DeltaExpr: fixedExpr{}},
			{Name: "history", Entity: "history", Insert: true},
		}}
	w, err := writes.New(ds, []writes.Decl{transfer})
	if err != nil {
		t.Fatal(err)
	}
	base, err := truth.Compute(context.Background(), ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	j := writes.NewJournal()
	delta := map[int64]int64{}
	var branchSum int64
	committed := int64(0)
	branchOf, _ := ds.ValueFunc("account", "account/branch")
	for k := int64(0); k < 30; k++ {
		op, err := w.TxOp("transfer", k)
		if err != nil {
			t.Fatal(err)
		}
		debit, credit, br := op.Steps[0], op.Steps[1], op.Steps[2]
		if debit.E == credit.E {
			t.Fatalf("write %d: credit is the debited account", k)
		}
		if want := branchOf(credit.ID, -1, nil)[0].Int; br.E != want {
			t.Fatalf("write %d: branch step on %d, the credited account's branch is %d", k, br.E, want)
		}
		if k%3 == 2 {
			continue // aborted: no step applies
		}
		a := op.Draws["amount"]
		delta[debit.E] -= a
		delta[credit.E] += a
		branchSum += a
		committed++
		j.CommitDeltas("transfer", k, debit.E, []int64{-a, a, a, 0})
	}
	got, err := truth.AdvanceJournal(base, w, j)
	if got == nil || !errors.Is(err, truth.ErrNotAdvanceable) || !strings.Contains(err.Error(), "[top]") {
		t.Fatalf("want only the max stale, got %v", err)
	}
	if got.Values["total"] != base.Values["total"] {
		t.Errorf("transfers changed the total: %v -> %v", base.Values["total"], got.Values["total"])
	}
	_, _, per := recount(t, ds, delta)
	for _, e := range got.Values["accounts"].([]truth.Entry) {
		if e.Fields["account/balance"] != per[e.E] {
			t.Errorf("account %d balance %v, want %d", e.E, e.Fields["account/balance"], per[e.E])
		}
	}
	if got.Values["branch_total"] != branchSum {
		t.Errorf("branch_total = %v, want %d", got.Values["branch_total"], branchSum)
	}
	if got.Values["histories"] != committed {
		t.Errorf("histories = %v, want %d committed", got.Values["histories"], committed)
	}
	// A journal without the run-time deltas cannot say what they added.
	j2 := writes.NewJournal()
	j2.Commit("transfer", 0, 0)
	if _, err := truth.AdvanceJournal(base, w, j2); err == nil {
		t.Error("a transaction journal without deltas advanced the truth")
	}
}

func TestWritesRefuseMixingAssignmentAndAddition(t *testing.T) {
	ds := bank(t)
	set := writes.Decl{Name: "set", Entity: "account", Attr: "account/balance",
		Value: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 5}, Target: datagen.Generator{Kind: datagen.GenRef, Target: "account"}}
	add := writes.Decl{Name: "add", Entity: "account", Attr: "account/balance",
		Delta: datagen.Generator{Kind: datagen.GenUniformInt, Min: 0, Max: 5}, Target: datagen.Generator{Kind: datagen.GenRef, Target: "account"}}
	if _, err := writes.New(ds, []writes.Decl{set, add}); err == nil {
		t.Error("an attribute both assigned and added to was accepted")
	}
	for _, name := range []string{"tx", "a-b", ""} {
		d := writes.Decl{Name: "d", Draws: []writes.Draw{{Name: name, Gen: add.Delta}}, Steps: []writes.Step{{Name: "a", Entity: "branch", Target: datagen.Generator{Kind: datagen.GenRef, Target: "branch"}, Attr: "branch/balance", Delta: add.Delta}}}
		if _, err := writes.New(ds, []writes.Decl{d}); err == nil {
			t.Errorf("draw %q accepted", name)
		}
	}
	bad := writes.Decl{Name: "bad", Steps: []writes.Step{{Name: "a", Entity: "branch", Target: datagen.Generator{Kind: datagen.GenRef, Target: "branch"}, Attr: "branch/id", Delta: add.Delta}}}
	if _, err := writes.New(ds, []writes.Decl{bad}); err == nil {
		t.Error("a delta on a unique string attribute was accepted")
	}
}
