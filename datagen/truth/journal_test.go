package truth_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/datagentest"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

var (
	issueInsert = writes.Decl{Name: "new_issue", Entity: "issue", Insert: true}
	userInsert  = writes.Decl{Name: "new_user", Entity: "user", Insert: true}
	// fieldsWrite redraws one of two attributes of different types.
	fieldsWrite = writes.Decl{Name: "fields", Entity: "issue", Attrs: []string{"issue/state", "issue/priority"},
		Target: datagen.Generator{Kind: datagen.GenZipf, Target: "issue", S: 1.1}}
)

// journalDataset is the issue tracker with truths inserts change: a plain
// count, counts over users, and aggregates.
func journalDataset(t *testing.T) *datagen.Dataset {
	t.Helper()
	ds := datagentest.IssueTracker(datagentest.ScaleXS, true)
	ds.Truth = append(ds.Truth,
		datagen.TruthDecl{Name: "all_issues", Kind: datagen.TruthCount, Entity: "issue"},
		datagen.TruthDecl{Name: "users_4", Kind: datagen.TruthCount, Entity: "user", Where: []datagen.Filter{{Attr: "user/email", Op: "ge", Value: "user4"}}},
		datagen.TruthDecl{Name: "prio_sum", Kind: datagen.TruthSum, Attr: "issue/priority"},
		datagen.TruthDecl{Name: "created_max", Kind: datagen.TruthMax, Attr: "issue/created", Where: []datagen.Filter{{Attr: "issue/state", Op: "eq", Value: "open"}}},
		datagen.TruthDecl{Name: "prio_min_by", Kind: datagen.TruthMin, Attr: "issue/priority", By: "issue/state"},
		datagen.TruthDecl{Name: "prio_avg", Kind: datagen.TruthAvg, Attr: "issue/priority"},
		datagen.TruthDecl{Name: "score_sum", Kind: datagen.TruthSum, Attr: "issue/score"},
	)
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	return ds
}

func newJournalWrites(t *testing.T, ds *datagen.Dataset, decls ...writes.Decl) (*writes.Writes, *truth.Truth) {
	t.Helper()
	w, err := writes.New(ds, decls)
	if err != nil {
		t.Fatal(err)
	}
	base, err := truth.Compute(context.Background(), ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	return w, base
}

func TestMultiAttributeUpdates(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	w, base := newJournalWrites(t, ds, fieldsWrite)
	b, _ := writes.New(datagentest.Finished(t, datagentest.ScaleXS, false), []writes.Decl{fieldsWrite})
	by := map[string]int{}
	for k := int64(0); k < 400; k++ {
		op, _ := w.Op("fields", k)
		again, _ := b.Op("fields", k)
		if !reflect.DeepEqual(op, again) {
			t.Fatalf("write %d differs: %+v vs %+v", k, op, again)
		}
		by[op.Attr]++
		info, _ := ds.Attr(op.Attr)
		if op.A != info.ID || op.Value.Type != info.Type {
			t.Fatalf("write %d: %+v", k, op)
		}
		if op.Attr == "issue/priority" && (op.Value.Int < 1 || op.Value.Int > 5) {
			t.Fatalf("write %d: a redraw of uniform(1, 5) gave %d", k, op.Value.Int)
		}
	}
	if by["issue/state"] < 150 || by["issue/priority"] < 150 {
		t.Errorf("attributes drawn %v, want about half each", by)
	}
	// Both attributes are read one hop deep (counts, samples, the refs of
	// assigned): every truth follows.
	if got := truth.Stale(w, "fields"); len(got) != 0 {
		t.Errorf("Stale = %v, want none", got)
	}
	for _, n := range []int64{0, 3, 400} {
		got, err := truth.Advance(base, w, "fields", n)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		j := writes.NewJournal()
		if err := w.CommitPrefix(j, "fields", n); err != nil {
			t.Fatal(err)
		}
		checkRecount(t, ds, w, j, got)
	}
}

// TestAdvanceJournalFollowsTheGreatestTx commits updates out of order,
// with holes and from two generators writing one attribute.
func TestAdvanceJournalFollowsTheGreatestTx(t *testing.T) {
	ds := datagentest.Finished(t, datagentest.ScaleXS, false)
	other := stateWrite
	other.Name = "state_too"
	other.Value = datagen.Generator{Kind: datagen.GenConst, Const: "in_progress"}
	w, base := newJournalWrites(t, ds, stateWrite, other)
	e := 3*datagen.EntityBase + 5
	// Two writes of state_change with different values (the draws are fixed).
	lo, hi := int64(3), int64(4)
	for ; ; hi++ {
		x, _ := w.Op("state_change", lo)
		y, _ := w.Op("state_change", hi)
		if !x.Value.Equal(y.Value) && !y.Value.Equal(datagen.Value{Type: datagen.TypeKeyword, Str: "in_progress"}) {
			break
		}
	}
	opHi, _ := w.Op("state_change", hi)
	after := func(commits ...writes.Committed) map[string]int64 {
		t.Helper()
		j := writes.NewJournal()
		for _, c := range commits {
			name := "state_change"
			if c.K >= 1000 {
				name, c.K = "state_too", c.K-1000
			}
			j.Commit(name, c.K, c.E)
		}
		tr, err := truth.AdvanceJournal(base, w, j)
		if err != nil {
			t.Fatal(err)
		}
		return tr.Values["state_counts"].(map[string]int64)
	}
	// moved is the base counts with issue 5 moved to v.
	moved := func(v datagen.Value) map[string]int64 {
		m := maps2(base.Values["state_counts"].(map[string]int64))
		vf, _ := ds.ValueFunc("issue", "issue/state")
		m[vf(5, -1, nil)[0].Str]--
		m[v.Str]++
		for k, n := range m {
			if n == 0 {
				delete(m, k)
			}
		}
		return m
	}
	if got, want := after(writes.Committed{K: hi, E: e}, writes.Committed{K: lo, E: e}), moved(opHi.Value); !reflect.DeepEqual(got, want) {
		t.Errorf("k=%d committed before k=%d: %v, want k=%d's value: %v", hi, lo, got, hi, want)
	}
	if got, want := after(writes.Committed{K: lo, E: e}, writes.Committed{K: hi, E: e}), moved(opHi.Value); !reflect.DeepEqual(got, want) {
		t.Errorf("k=%d then k=%d: %v, want %v", lo, hi, got, want)
	}
	// Write lo of state_too has tx 2*lo+1: after write lo of state_change
	// (2*lo), before its write hi (2*hi).
	inProgress := datagen.Value{Type: datagen.TypeKeyword, Str: "in_progress"}
	if got, want := after(writes.Committed{K: lo, E: e}, writes.Committed{K: 1000 + lo, E: e}), moved(inProgress); !reflect.DeepEqual(got, want) {
		t.Errorf("two generators: %v, want the greater tx's value: %v", got, want)
	}
	if got, want := after(writes.Committed{K: hi, E: e}, writes.Committed{K: 1000 + lo, E: e}), moved(opHi.Value); !reflect.DeepEqual(got, want) {
		t.Errorf("two generators: %v, want the greater tx's value: %v", got, want)
	}
	// A journal with a hole: write 4 failed.
	j := writes.NewJournal()
	for k := int64(0); k < 40; k++ {
		if k != 4 {
			op, _ := w.Op("state_change", k)
			j.Commit("state_change", k, op.E)
		}
	}
	j.Commit("state_change", 7, func() int64 { op, _ := w.Op("state_change", 7); return op.E }()) // recorded twice
	got, err := truth.AdvanceJournal(base, w, j)
	if err != nil {
		t.Fatal(err)
	}
	checkRecount(t, ds, w, j, got)
	// A journal naming another entity for an insert, or write k twice
	// with two entities, is refused.
	bad := writes.NewJournal()
	bad.Commit("state_change", 1, e)
	bad.Commit("state_change", 1, e+1)
	if _, err := truth.AdvanceJournal(base, w, bad); err == nil || !strings.Contains(err.Error(), "committed to both") {
		t.Errorf("write committed to two entities: %v", err)
	}
	bad = writes.NewJournal()
	bad.Commit("nope", 1, e)
	if _, err := truth.AdvanceJournal(base, w, bad); err == nil {
		t.Error("a journal of an undeclared generator: no error")
	}
}

func maps2(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestAdvanceJournalFollowsInserts(t *testing.T) {
	ds := journalDataset(t)
	w, base := newJournalWrites(t, ds, stateWrite, issueInsert, userInsert)
	if got := truth.Stale(w, "new_issue"); !reflect.DeepEqual(got, []string{"prio_avg", "score_sum"}) {
		t.Errorf("Stale(new_issue) = %v, want [prio_avg score_sum]", got)
	}
	if got := truth.Stale(w, "new_user"); len(got) != 0 {
		t.Errorf("Stale(new_user) = %v, want none", got)
	}
	journal := func(skip int64, updates bool) *writes.Journal {
		j := writes.NewJournal()
		for k := int64(0); k < 300; k++ {
			if k == skip {
				continue
			}
			for _, name := range []string{"new_issue", "new_user"} {
				op, _ := w.Op(name, k)
				j.Commit(name, k, op.E)
			}
			if updates && k%3 == 0 {
				op, _ := w.Op("state_change", k)
				j.Commit("state_change", k, op.E)
			}
		}
		if updates {
			// An update of an inserted issue after its insert, and of one
			// whose insert did not commit.
			j.Commit("state_change", 301, 3*datagen.EntityBase+datagentest.ScaleXS.Issues+10)
			j.Commit("state_change", 302, 3*datagen.EntityBase+datagentest.ScaleXS.Issues+305)
		}
		return j
	}
	for _, updates := range []bool{false, true} {
		j := journal(-1, updates)
		got, err := truth.AdvanceJournal(base, w, j)
		if !errors.Is(err, truth.ErrNotAdvanceable) || !strings.Contains(err.Error(), `"new_issue"`) {
			t.Fatalf("updates=%v: %v", updates, err)
		}
		for _, name := range []string{"prio_avg", "score_sum"} {
			if _, ok := got.Values[name]; ok {
				t.Errorf("%s kept its value", name)
			}
		}
		checkRecount(t, ds, w, j, got)
		ids := got.Values[datagen.IDsKey].(map[string]any)
		for _, name := range []string{"open_high", "users_4", "state_counts", "changed_since_mid"} {
			if _, ok := ids[name]; ok == updates && name != "users_4" || name == "users_4" && !ok {
				t.Errorf("updates=%v: id set of %s followed: %v", updates, name, ok)
			}
		}
		refs := 0
		for _, u := range got.Values["assigned"].([]truth.Entry) {
			refs += len(u.Refs)
		}
		for _, u := range base.Values["assigned"].([]truth.Entry) {
			refs -= len(u.Refs)
		}
		if refs <= 0 {
			t.Errorf("updates=%v: no inserted issue joined the refs of assigned", updates)
		}
		if !reflect.DeepEqual(got.Values["issue_samples"], base.Values["issue_samples"]) && !updates {
			t.Error("inserts changed a sample of loaded entities")
		}
		// Insert 7 left out: a check comparing with the full truth fails.
		less, _ := truth.AdvanceJournal(base, w, journal(7, updates))
		checkRecount(t, ds, w, journal(7, updates), less)
		if less.Values["all_issues"] == got.Values["all_issues"] {
			t.Errorf("updates=%v: leaving insert 7 out kept all_issues = %v", updates, got.Values["all_issues"])
		}
		if got.Values["all_issues"] != base.Values["all_issues"].(int64)+300 {
			t.Errorf("all_issues %v after 300 inserts, base %v", got.Values["all_issues"], base.Values["all_issues"])
		}
	}
}

// checkRecount recomputes the truths the journal changes by brute force
// over every loaded and inserted entity, with the committed writes laid
// over the generated values (the greatest tx winning), and compares.
func checkRecount(t *testing.T, ds *datagen.Dataset, w *writes.Writes, j *writes.Journal, got *truth.Truth) {
	t.Helper()
	type ea struct {
		attr string
		id   int64
	}
	type stamp struct {
		tx int64
		v  datagen.Value
	}
	over := map[ea]stamp{}
	inserted := map[string]map[int64]int64{}
	for _, name := range j.Generators() {
		for _, c := range j.Committed(name) {
			op, err := w.Op(name, c.K)
			if err != nil {
				t.Fatal(err)
			}
			if op.Insert {
				if inserted[op.Entity] == nil {
					inserted[op.Entity] = map[int64]int64{}
				}
				inserted[op.Entity][op.ID] = op.Tx
				continue
			}
			id := c.E - op.E + op.ID
			if cur, ok := over[ea{op.Attr, id}]; !ok || op.Tx > cur.tx {
				over[ea{op.Attr, id}] = stamp{op.Tx, op.Value}
			}
		}
	}
	values := func(kind, attr string, id int64) []datagen.Value {
		if x, ok := over[ea{attr, id}]; ok && (id < ds.Count(kind) || x.tx > inserted[kind][id]) {
			return []datagen.Value{x.v}
		}
		vf, err := ds.ValueFunc(kind, attr)
		if err != nil {
			t.Fatal(err)
		}
		return vf(id, -1, nil)
	}
	ids := func(kind string) []int64 {
		var out []int64
		for id := int64(0); id < ds.Count(kind); id++ {
			out = append(out, id)
		}
		for id := range inserted[kind] {
			out = append(out, id)
		}
		return out
	}
	one := func(kind, attr string, id int64) datagen.Value { return values(kind, attr, id)[0] }
	counts := map[string]int64{}
	labels := map[string]int64{}
	var openHigh, all int64
	var openHighIDs []int64
	stateIDs := map[string][]int64{}
	for _, id := range ids("issue") {
		all++
		st := one("issue", "issue/state", id)
		counts[st.Str]++
		stateIDs[st.Str] = append(stateIDs[st.Str], 3*datagen.EntityBase+id)
		for _, l := range values("issue", "issue/labels", id) {
			labels[l.String()]++
		}
		if st.Str == "open" && one("issue", "issue/priority", id).Int >= 4 {
			openHigh++
			openHighIDs = append(openHighIDs, 3*datagen.EntityBase+id)
		}
	}
	if !reflect.DeepEqual(got.Values["state_counts"], counts) {
		t.Errorf("state_counts %v, recount %v", got.Values["state_counts"], counts)
	}
	if !reflect.DeepEqual(got.Values["label_counts"], labels) {
		t.Errorf("label_counts %v, recount %v", got.Values["label_counts"], labels)
	}
	if got.Values["open_high"] != openHigh {
		t.Errorf("open_high %v, recount %d", got.Values["open_high"], openHigh)
	}
	idsets, _ := got.Values[datagen.IDsKey].(map[string]any)
	if set, ok := idsets["open_high"]; ok && !reflect.DeepEqual(set, truth.IDSetOf(openHighIDs, truth.IDHeadLen)) {
		t.Errorf("open_high ids %+v, recount %+v", set, truth.IDSetOf(openHighIDs, truth.IDHeadLen))
	}
	if sets, ok := idsets["state_counts"].(map[string]truth.IDSet); ok {
		for st, set := range sets {
			if want := truth.IDSetOf(stateIDs[st], truth.IDHeadLen); !reflect.DeepEqual(set, want) {
				t.Errorf("state_counts ids of %s: %+v, recount %+v", st, set, want)
			}
		}
		if len(sets) != len(stateIDs) {
			t.Errorf("state_counts ids for %d states, recount %d", len(sets), len(stateIDs))
		}
	}
	if v, ok := got.Values["all_issues"]; ok && v != all {
		t.Errorf("all_issues %v, recount %d", v, all)
	}
	if _, ok := got.Values["users_4"]; ok {
		var n int64
		var uids []int64
		for _, id := range ids("user") {
			if one("user", "user/email", id).Str >= "user4" {
				n++
				uids = append(uids, datagen.EntityBase+id)
			}
		}
		if got.Values["users_4"] != n {
			t.Errorf("users_4 %v, recount %d", got.Values["users_4"], n)
		}
		if set := idsets["users_4"]; !reflect.DeepEqual(set, truth.IDSetOf(uids, truth.IDHeadLen)) {
			t.Errorf("users_4 ids %+v, recount %+v", set, truth.IDSetOf(uids, truth.IDHeadLen))
		}
	}
	if _, ok := got.Values["prio_sum"]; ok && len(inserted["issue"]) > 0 {
		var sum, maxCreated int64
		minBy := map[string]any{}
		for _, id := range ids("issue") {
			p := one("issue", "issue/priority", id).Int
			sum += p
			st := one("issue", "issue/state", id).Str
			if m, ok := minBy[st]; !ok || p < m.(int64) {
				minBy[st] = p
			}
			if c := one("issue", "issue/created", id).Int; st == "open" && c > maxCreated {
				maxCreated = c
			}
		}
		if got.Values["prio_sum"] != sum {
			t.Errorf("prio_sum %v, recount %d", got.Values["prio_sum"], sum)
		}
		// Updates of state make these stale; they are checked with inserts only.
		if v, ok := got.Values["created_max"]; ok && v != maxCreated {
			t.Errorf("created_max %v, recount %d", v, maxCreated)
		}
		if v, ok := got.Values["prio_min_by"]; ok && !reflect.DeepEqual(v, minBy) {
			t.Errorf("prio_min_by %v, recount %v", v, minBy)
		}
	}
	// Inverse: the issues assigned to each sampled user, inserted ones too.
	if v, ok := got.Values["assigned"]; ok {
		for _, u := range v.([]truth.Entry) {
			var want []int64
			for _, id := range ids("issue") {
				if one("issue", "issue/assignee", id).Int == u.E {
					want = append(want, 3*datagen.EntityBase+id)
				}
			}
			sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
			var have []int64
			for _, r := range u.Refs {
				have = append(have, r.E)
				if r.Fields["issue/state"] != one("issue", "issue/state", r.ID).Any() {
					t.Errorf("assigned ref %d state %v, want %v", r.E, r.Fields["issue/state"], one("issue", "issue/state", r.ID).Any())
				}
			}
			if !reflect.DeepEqual(have, want) {
				t.Errorf("assigned %d refs %v, recount %v", u.E, have, want)
			}
		}
	}
	if v, ok := got.Values["changed_since_mid"]; ok && len(inserted["issue"]) > 0 && len(over) == 0 {
		base, _ := truth.Compute(context.Background(), ds, 2)
		if v != base.Values["changed_since_mid"].(int64)+int64(len(inserted["issue"])) {
			t.Errorf("changed_since_mid %v: not the base plus one per inserted issue", v)
		}
	}
}
