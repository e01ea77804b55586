package writemixed

import (
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

func kw(s string) datagen.Value { return datagen.Value{Type: datagen.TypeKeyword, Str: s} }

// judge accepts rows that agree on one legal value and names the write a
// read contradicts otherwise.
func TestJudge(t *testing.T) {
	legal := []datagen.Value{kw("open"), kw("closed")}
	ks := []int64{6, 7} // before write 7, after write 7
	for _, tc := range []struct {
		name string
		rows [][]any
		want string // "" = legal
	}{
		{"before", [][]any{{"open"}, {"open"}}, ""},
		{"after", [][]any{{"closed"}, {"closed"}}, ""},
		{"half a write", [][]any{{"open"}, {"closed"}}, "contradicts write 7"},
		{"never written", [][]any{{"in_progress"}, {"in_progress"}}, "never existed: it contradicts write 7"},
		{"no row", nil, "no row"},
		{"two columns", [][]any{{"open", 1}}, "one column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := judge(42, tc.rows, legal, ks, 7, 8)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("judge = %q, want %q", got, tc.want)
			}
		})
	}
}

// legal gives the state after the writes committed before a read, then
// each write to the entity begun before it ended; an aborted write that
// is not begun again is not legal.
func TestCommitLogLegal(t *testing.T) {
	ds := &datagen.Dataset{Name: "d", Seed: 1, TxSize: 10, Entities: []datagen.Entity{{Name: "issue", Count: 3, Attrs: []datagen.Attr{
		{Ident: "issue/state", Type: datagen.TypeKeyword, Gen: datagen.Generator{Kind: datagen.GenConst, Const: "new"}},
	}}}}
	if err := ds.Finish(); err != nil {
		t.Fatal(err)
	}
	w, err := writes.New(ds, []writes.Decl{{Name: "w", Entity: "issue", Attr: "issue/state",
		Value:  datagen.Generator{Kind: datagen.GenWeighted, Choices: []string{"a", "b", "c"}, Weights: []float64{1, 1, 1}},
		Target: datagen.Generator{Kind: datagen.GenRef, Target: "issue"}}})
	if err != nil {
		t.Fatal(err)
	}
	l := newCommitLog(w, "w", 0)
	var ops []writes.Op
	for k := int64(0); k < 12; k++ {
		op, _ := w.Op("w", k)
		ops = append(ops, op)
		l.begin(op)
		l.commit(k)
	}
	e := ops[11].E
	// Every write committed before the read: one legal value, the last
	// write to e.
	vals, _, err := l.legal(e, 12, 12)
	if err != nil || len(vals) != 1 || !vals[0].Equal(ops[11].Value) {
		t.Fatalf("legal after all writes = %v, %v; want [%v]", vals, err, ops[11].Value)
	}
	// A read spanning every write: the state before them (the generated
	// value) and each write to e.
	vals, ks, _ := l.legal(e, 0, 12)
	want := []datagen.Value{kw("new")}
	for _, op := range ops {
		if op.E == e {
			want = append(want, op.Value)
		}
	}
	if len(vals) != len(want) || ks[0] != -1 {
		t.Fatalf("legal over all writes = %v %v, want %v", vals, ks, want)
	}
	for i := range want {
		if !vals[i].Equal(want[i]) {
			t.Errorf("legal[%d] = %v, want %v", i, vals[i], want[i])
		}
	}
	l.abort(12)
	if got := l.started.Load(); got != 12 {
		t.Errorf("started after an abort = %d", got)
	}
}
