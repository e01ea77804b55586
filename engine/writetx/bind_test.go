package writetx

import (
	"context"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// The binder resolved at Prepare binds every name as TxArgs does: each
// step's entity, attribute and value (a delta where the step adds), an
// insert's attributes (many as a JSON array), the draws, :k and :tx, a
// step's name over a draw of the same name, and NULL for a name nothing
// binds.
func TestBinderBindsAsTxArgs(t *testing.T) {
	steps := []writes.StepInfo{{Name: "a", Add: true}, {Name: "b"}, {Name: "h", Insert: true}, {Name: "x", Add: true}}
	idents := map[string][]string{"h": {"h/delta", "h/tags", "h/gone"}}
	p := TxParams(steps, []string{"amount", "x_e"}, idents)
	p.tx.many = map[string]bool{"h/tags": true}
	names := []string{"k", "tx", "amount", "x_e", "a_e", "a_a", "a_v", "b_e", "b_a", "b_v", "h_e", "h_h_delta", "h_h_tags", "h_h_gone", "x_v", "nothing"}
	b := newBinder(p.tx, names[:3], [][]string{names, names[5:]})
	if !b.values {
		t.Error("an insert's attributes bound, values false")
	}
	ops := []writes.TxOp{
		{K: 2, Tx: 77, Draws: map[string]int64{"amount": 5, "x_e": 99}, Steps: []writes.Op{
			{E: 10, A: 3, Add: true},
			{E: 11, A: 4, Value: datagen.Value{Type: datagen.TypeString, Str: "x"}},
			{E: 12, Insert: true, Values: []writes.AttrValues{
				{Attr: "h/delta", Values: []datagen.Value{{Type: datagen.TypeLong, Int: 9}}},
				{Attr: "h/tags", Values: []datagen.Value{{Type: datagen.TypeRef, Int: 4}, {Type: datagen.TypeRef, Int: 5}}},
			}},
			{E: 13, A: 5, Add: true},
		}},
		{K: 3, Tx: 78, Steps: []writes.Op{{E: 1, A: 3, Add: true}, {E: 2, A: 4}, {E: 3, Insert: true}, {E: 4, A: 5, Add: true}}},
	}
	many := func(a string) bool { return a == "h/tags" }
	for i, op := range ops {
		deltas := []int64{-5, 0, 0, 1000}
		want := TxArgs(op, steps, deltas, many)
		check := func(what string, got []any, ns []string) {
			for j, n := range ns {
				if fmt.Sprintf("%#v", got[j]) != fmt.Sprintf("%#v", want[n]) {
					t.Errorf("op %d, %s :%s = %#v, TxArgs %#v", i, what, n, got[j], want[n])
				}
			}
		}
		check("read", bindOp(b.rargs, b.read, &op, deltas), names[:3])
		check("statement 0", bindOp(b.args[0], b.stmts[0], &op, deltas), names)
		check("statement 1", bindOp(b.args[1], b.stmts[1], &op, deltas), names[5:])
	}
	if (newBinder(p.tx, nil, [][]string{{"a_e", "a_v"}})).values {
		t.Error("no insert attribute bound, values true")
	}
	// Boxing the values is all a transaction's binding allocates.
	op := ops[0]
	deltas := []int64{-5, 0, 0, 1000}
	b = newBinder(p.tx, nil, [][]string{{"k", "a_e", "a_a", "a_v", "x_v"}})
	if n := testing.AllocsPerRun(100, func() { bindOp(b.args[0], b.stmts[0], &op, deltas) }); n > 4 {
		t.Errorf("binding 5 whole numbers allocates %.0f times", n)
	}
}

// RunOp on a real SQLite store: the read binds the entities, decide sets
// the deltas the statements then bind; an abort writes nothing.
func TestRunOpBindsFromTheTxOp(t *testing.T) {
	ctx := context.Background()
	be, err := sqlite.New().Open(ctx, drivers.Config{Backend: "t", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	s, err := be.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)", "INSERT INTO acct VALUES (1, 100), (2, 0)"} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	queries := map[string][]kind.Statement{
		"read":  {{SQL: "SELECT bal AS Balance FROM acct WHERE id = ?", Names: []string{"debit_e"}}},
		"write": {{SQL: "UPDATE acct SET bal = bal + ? WHERE id = ?", Names: []string{"debit_v", "debit_e"}}, {SQL: "UPDATE acct SET bal = bal + ? WHERE id = ?", Names: []string{"credit_v", "credit_e"}}},
	}
	steps := []writes.StepInfo{{Name: "debit"}, {Name: "credit"}}
	tx, err := Prepare(ctx, s, kind.Operation{Name: "transfer", Read: "read", Query: "write"},
		func(q string) ([]kind.Statement, error) { return queries[q], nil }, TxParams(steps, []string{"amount"}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	var a, b int64
	check := func(wantA, wantB int64) {
		t.Helper()
		st, _ := s.Prepare(ctx, "SELECT (SELECT bal FROM acct WHERE id = 1), (SELECT bal FROM acct WHERE id = 2)")
		defer st.Close()
		var rows [][]any
		if _, err := st.Query(ctx, nil, &rows); err != nil {
			t.Fatal(err)
		}
		if a, b = rows[0][0].(int64), rows[0][1].(int64); a != wantA || b != wantB {
			t.Errorf("balances %d, %d; want %d, %d", a, b, wantA, wantB)
		}
	}
	for _, tc := range []struct {
		amount       int64
		aborted      bool
		wantA, wantB int64
	}{{30, false, 70, 30}, {80, true, 70, 30}, {70, false, 0, 100}} {
		op := writes.TxOp{K: 1, Tx: 9, Draws: map[string]int64{"amount": tc.amount}, Steps: []writes.Op{{E: 1, Add: true}, {E: 2, Add: true}}}
		deltas := make([]int64, 2)
		err, atCommit, aborted := tx.RunOp(ctx, &op, deltas, func(read map[string]any) (bool, error) {
			if read["balance"].(int64) < tc.amount {
				return true, nil
			}
			deltas[0], deltas[1] = -tc.amount, tc.amount
			return false, nil
		})
		if err != nil || atCommit || aborted != tc.aborted {
			t.Fatalf("amount %d: %v, at commit %v, aborted %v", tc.amount, err, atCommit, aborted)
		}
		if aborted {
			if err := s.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
		}
		check(tc.wantA, tc.wantB)
	}
}
