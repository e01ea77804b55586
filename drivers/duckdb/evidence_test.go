package duckdb

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// A query's analyzed plan is the profiler's, with per-operator times and
// cardinalities; a write is refused, never run.
func TestExplainAnalyze(t *testing.T) {
	ctx := context.Background()
	b := openT(t, drivers.Config{})
	s := drivertest.Session(t, b)
	drivertest.Exec(t, s, "CREATE TABLE x (k INTEGER, v INTEGER)")
	drivertest.Exec(t, s, "INSERT INTO x SELECT range, range % 7 FROM range(1000)")
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
	rows := drivertest.Rows(t, s, "SELECT count(*) FROM x")
	if len(rows) != 1 || rows[0][0] != int64(1000) {
		t.Errorf("rows after the refused write: %v, want 1000", rows)
	}
}
