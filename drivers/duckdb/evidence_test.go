package duckdb

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// A query's analyzed plan is the profiler's, with per-operator times and
// cardinalities; a write is refused, never run.
func TestExplainAnalyze(t *testing.T) {
	ctx := context.Background()
	be, err := New().Open(ctx, drivers.Config{Backend: "t", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	b := be.(*backend)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"CREATE TABLE x (k INTEGER, v INTEGER)", "INSERT INTO x SELECT range, range % 7 FROM range(1000)"} {
		if err := s.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := b.ExplainAnalyze(ctx, "SELECT count(*) FROM x WHERE v = ?", []any{int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "Total Time") {
		t.Errorf("no profiler times in:\n%s", plan)
	}
	if _, err := b.ExplainAnalyze(ctx, "INSERT INTO x VALUES (?, 1)", []any{int64(5000)}); err == nil || !strings.Contains(err.Error(), "not run") {
		t.Errorf("a write: err = %v, want it refused", err)
	}
	st, err := s.Prepare(ctx, "SELECT count(*) FROM x")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0][0] != int64(1000) {
		t.Errorf("rows after the refused write: %v, want 1000", rows)
	}
}
