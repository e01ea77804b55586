package runner

import (
	"testing"
)

// A query with an `edn` text is explained by that text, not by the SQL
// that calls the store: mentat_explain takes the Datalog; without one,
// by its SQL as written, with the call's arguments.
func TestExplainQueryText(t *testing.T) {
	t.Setenv("MENTAT_SPEC_BENCH_SCALE", "xs")
	c := loadedCell(t, "sqlite", nil)
	q, ok := c.explainQuery("q1")
	if !ok || q.Text != c.pc.Queries["q1"].SQL || len(q.Names) != 1 || q.Names[0] != "email" || len(q.Args) != 1 {
		t.Fatalf("q1 explained as %+v, %v", q, ok)
	}
	pq := *c.pc.Queries["q1"]
	pq.EDN = "[:find ?e :in $ ?email :where [?e :user/email ?email]]"
	c.pc.Queries["q1"] = &pq
	if q, _ := c.explainQuery("q1"); q.Text != pq.EDN {
		t.Errorf("explained %q, want the edn %q", q.Text, pq.EDN)
	}
	if _, ok := c.explainQuery("no_such_query"); ok {
		t.Error("a query not declared is explained")
	}
}
