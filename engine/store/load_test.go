package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/store"
)

// TestExecTimed: every statement of the after-load texts runs in order
// and is timed; the load log names each with its share; a failing
// statement stops the rest and is not reported as done.
func TestExecTimed(t *testing.T) {
	ctx := context.Background()
	s := session(t, nil)
	texts := []string{"-- the table\nCREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (1);", "CREATE INDEX t_x ON t (x)"}
	if n := store.CountStatements(texts); n != 3 {
		t.Fatalf("CountStatements = %d, want 3", n)
	}
	var steps []store.Step
	err := store.ExecTimed(ctx, s, texts, func(stmt string, took time.Duration) {
		steps = append(steps, store.Step{What: "after_load", SQL: stmt, Took: took})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || !strings.Contains(steps[2].SQL, "CREATE INDEX") {
		t.Fatalf("steps = %+v, want the 3 statements in order", steps)
	}
	var b strings.Builder
	store.WriteLog(&b, "xs/sqlite", store.Result{}, steps)
	for _, want := range []string{"after_load statement 1 of 3 took ", "): CREATE TABLE t (x INTEGER)", "after_load statement 3 of 3 took ", "): CREATE INDEX t_x ON t (x)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("load log lacks %q:\n%s", want, b.String())
		}
	}

	steps = nil
	err = store.ExecTimed(ctx, s, []string{"INSERT INTO t VALUES (2); INSERT INTO missing VALUES (1); INSERT INTO t VALUES (3)"},
		func(stmt string, took time.Duration) { steps = append(steps, store.Step{SQL: stmt}) })
	if err == nil || len(steps) != 1 {
		t.Fatalf("err %v after %d steps, want an error after 1", err, len(steps))
	}
}
