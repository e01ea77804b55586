package runner

import (
	"context"
	"strings"
	"testing"
)

// The backend's explain statement: :q is the query's text as written,
// every other parameter the query's value in the explained call; one it
// does not bind is an error naming it.
func TestExplainStatement(t *testing.T) {
	t.Setenv("MENTAT_SPEC_BENCH_SCALE", "xs")
	c := loadedCell(t, "sqlite", nil)
	q := c.queries["q1"]
	if q == nil || q.binder == nil || len(q.bound.Names) != 1 || q.bound.Names[0] != "email" {
		t.Fatalf("the bench spec's q1 is not the email lookup: %+v", q)
	}
	args := []any{"someone@example.com"}
	ctx := context.Background()
	c.pc.Backend.Explain = "SELECT 'plan', :email, instr(:q, ':email') > 0 UNION ALL SELECT 'second', 2, 0"
	text, err := c.explainStatement(ctx, q, args)
	if err != nil {
		t.Fatal(err)
	}
	if text != "plan\tsomeone@example.com\t1\nsecond\t2\t0" {
		t.Errorf("explained: %q", text)
	}
	c.pc.Backend.Explain = "SELECT :q, :e"
	if _, err := c.explainStatement(ctx, q, args); err == nil || !strings.Contains(err.Error(), ":e, which query q1 does not") {
		t.Errorf("a parameter q1 lacks: %v", err)
	}
}

// A query with an `edn` text is explained by that text, not by the SQL
// that calls the store: mentat_explain takes the Datalog.
func TestExplainStatementEDN(t *testing.T) {
	t.Setenv("MENTAT_SPEC_BENCH_SCALE", "xs")
	c := loadedCell(t, "sqlite", nil)
	q := c.queries["q1"]
	pq := *c.pc.Queries["q1"]
	pq.EDN = "[:find ?e :in $ ?email :where [?e :user/email ?email]]"
	c.pc.Queries["q1"] = &pq
	c.pc.Backend.Explain = "SELECT :q, :email"
	text, err := c.explainStatement(context.Background(), q, []any{"someone@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if want := pq.EDN + "\tsomeone@example.com"; text != want {
		t.Errorf("explained %q, want %q", text, want)
	}
}
