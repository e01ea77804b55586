package writetx

import (
	"context"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// RunDecide on a real SQLite store: the read's first row reaches decide
// by column name, an abort writes nothing, and the statements bind what
// decide computed.
func TestRunDecideReadsDecidesAndAborts(t *testing.T) {
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
	balances := func() (a, b int64) {
		st, _ := s.Prepare(ctx, "SELECT (SELECT bal FROM acct WHERE id = 1), (SELECT bal FROM acct WHERE id = 2)")
		defer st.Close()
		var rows [][]any
		if _, err := st.Query(ctx, nil, &rows); err != nil {
			t.Fatal(err)
		}
		return rows[0][0].(int64), rows[0][1].(int64)
	}
	for _, tc := range []struct {
		amount       int64
		aborted      bool
		wantA, wantB int64
	}{
		{30, false, 70, 30},
		{80, true, 70, 30}, // 70 < 80: insufficient funds
		{70, false, 0, 100},
	} {
		op := writes.TxOp{K: 1, Tx: 9, Draws: map[string]int64{"amount": tc.amount}, Steps: []writes.Op{{E: 1, Add: true}, {E: 2, Add: true}}}
		deltas := make([]int64, 2)
		var args map[string]any
		pre := TxArgs(op, steps, deltas, func(string) bool { return false })
		var seen any
		decide := func(read map[string]any) (bool, error) {
			seen = read["balance"]
			if read["balance"].(int64) < tc.amount {
				return true, nil
			}
			deltas[0], deltas[1] = -tc.amount, tc.amount
			args = TxArgs(op, steps, deltas, func(string) bool { return false })
			return false, nil
		}
		arg := func(n string) any {
			if args == nil {
				return pre[n]
			}
			return args[n]
		}
		err, atCommit, aborted := tx.RunDecide(ctx, arg, decide)
		if err != nil || atCommit {
			t.Fatalf("amount %d: %v", tc.amount, err)
		}
		if aborted {
			if err := s.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
		}
		if aborted != tc.aborted {
			t.Errorf("amount %d: aborted %v, want %v (read balance %v)", tc.amount, aborted, tc.aborted, seen)
		}
		if a, b := balances(); a != tc.wantA || b != tc.wantB {
			t.Errorf("amount %d: balances %d, %d; want %d, %d", tc.amount, a, b, tc.wantA, tc.wantB)
		}
	}
}

// TxParams allows each step's parameters and the draws, and nothing else;
// TxArgs binds an addition's delta and an assignment's value as :STEP_v.
func TestTxParamsAndArgs(t *testing.T) {
	steps := []writes.StepInfo{{Name: "a", Add: true}, {Name: "b"}, {Name: "h", Insert: true}}
	p := TxParams(steps, []string{"amount"}, map[string][]string{"h": {"history/delta"}})
	for _, n := range []string{"k", "tx", "amount", "a_e", "a_a", "a_v", "b_v", "h_e", "h_history_delta"} {
		if !p.Allowed[n] {
			t.Errorf("%s not allowed: %s", n, p.Text)
		}
	}
	for _, n := range []string{"e", "v", "h_v", "delta"} {
		if p.Allowed[n] {
			t.Errorf("%s allowed", n)
		}
	}
	op := writes.TxOp{K: 2, Tx: 77, Draws: map[string]int64{"amount": 5}, Steps: []writes.Op{
		{E: 10, A: 3, Add: true},
		{E: 11, A: 4, Value: datagen.Value{Type: datagen.TypeString, Str: "x"}},
		{E: 12, Insert: true, Values: []writes.AttrValues{{Attr: "history/delta", Values: []datagen.Value{{Type: datagen.TypeLong, Int: 9}}}}},
	}}
	args := TxArgs(op, steps, []int64{-5, 0, 0}, func(string) bool { return false })
	want := map[string]any{"k": int64(2), "tx": int64(77), "amount": int64(5), "a_e": int64(10), "a_a": int64(3), "a_v": int64(-5),
		"b_e": int64(11), "b_a": int64(4), "b_v": "x", "h_e": int64(12), "h_history_delta": int64(9)}
	for k, v := range want {
		if args[k] != v {
			t.Errorf("%s = %#v, want %#v", k, args[k], v)
		}
	}
}
