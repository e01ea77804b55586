package duckdb

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// Two transactions update one row: the second meets DuckDB's real
// conflict, classified typed, wrapped and as a worker's text.
func TestClassifyErrorConflict(t *testing.T) {
	ctx := context.Background()
	b := openT(t, drivers.Config{})
	s1, s2 := drivertest.Session(t, b), drivertest.Session(t, b)
	drivertest.Exec(t, s1, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
	drivertest.Exec(t, s1, "INSERT INTO t VALUES (1, 0)")
	drivertest.Exec(t, s1, "BEGIN")
	drivertest.Exec(t, s2, "BEGIN")
	drivertest.Exec(t, s1, "UPDATE t SET v = 1 WHERE id = 1")
	err := s2.Exec(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	if err == nil {
		err = s2.Exec(ctx, "COMMIT")
	}
	drivertest.Exec(t, s1, "COMMIT")
	_ = s2.Exec(ctx, "ROLLBACK")
	if err == nil {
		t.Fatal("two transactions updated one row without a conflict")
	}
	for _, e := range []error{err, fmt.Errorf("write 3: %w", err), errors.New(err.Error())} {
		if got := drivers.ClassifyError(New(), e); got != drivers.ErrorConflict {
			t.Errorf("ClassifyError(%q) = %q, want conflict", e, got)
		}
	}
	// A misuse is a TransactionContext error too, and no conflict.
	drivertest.Exec(t, s1, "BEGIN")
	err = s1.Exec(ctx, "BEGIN")
	_ = s1.Exec(ctx, "ROLLBACK")
	if err == nil {
		t.Fatal("BEGIN inside a transaction succeeded")
	}
	if got := drivers.ClassifyError(New(), err); got != drivers.ErrorOther {
		t.Errorf("ClassifyError(%q) = %q, want other", err, got)
	}
}

func TestClassifyErrorText(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want drivers.ErrorClass
	}{
		{`TransactionContext Error: Catalog write-write conflict on alter with "cur_text"`, drivers.ErrorConflict},
		{"TransactionContext Error: Conflict on update!", drivers.ErrorConflict},
		{`Parser Error: syntax error at or near "UPDAT"`, drivers.ErrorOther},
	} {
		if got := drivers.ClassifyError(New(), errors.New(tc.msg)); got != tc.want {
			t.Errorf("ClassifyError(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
