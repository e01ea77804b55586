package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// Real server errors: a serialization failure between two REPEATABLE
// READ transactions, and a statement timeout; each classified typed,
// wrapped, and as the text a worker process reports.
func TestClassifyErrorServer(t *testing.T) {
	ctx := testCtx(t)
	b := openTest(t, variants[0], nil)
	sess := func() drivers.Session {
		t.Helper()
		s, err := b.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s1, s2 := sess(), sess()
	exec := func(s drivers.Session, sql string) {
		t.Helper()
		if err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(s1, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	exec(s1, "INSERT INTO t VALUES (1, 0)")
	exec(s1, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(s2, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	exec(s2, "SELECT v FROM t WHERE id = 1") // s2's snapshot is taken
	exec(s1, "UPDATE t SET v = 1 WHERE id = 1")
	exec(s1, "COMMIT")
	serial := s2.Exec(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	_ = s2.Exec(ctx, "ROLLBACK")

	exec(s1, "SET statement_timeout = 50")
	timeout := s1.Exec(ctx, "SELECT pg_sleep(5)")
	exec(s1, "SET statement_timeout = 0")

	for _, tc := range []struct {
		err  error
		want drivers.ErrorClass
	}{{serial, drivers.ErrorSerialization}, {timeout, drivers.ErrorTimeout}} {
		if tc.err == nil {
			t.Fatalf("no error where %s was expected", tc.want)
		}
		for _, e := range []error{tc.err, fmt.Errorf("write 3: %w", tc.err), errors.New(tc.err.Error())} {
			if got := drivers.ClassifyError(New(Name), e); got != tc.want {
				t.Errorf("ClassifyError(%q) = %q, want %q", e, got, tc.want)
			}
		}
	}
}

func TestClassifyErrorText(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want drivers.ErrorClass
	}{
		{"ERROR: could not serialize access due to concurrent update (SQLSTATE 40001)", drivers.ErrorSerialization},
		{"ERROR: deadlock detected (SQLSTATE 40P01)", drivers.ErrorDeadlock},
		{"deadlock detected", drivers.ErrorDeadlock},
		{"ERROR: canceling statement due to lock timeout (SQLSTATE 55P03)", drivers.ErrorTimeout},
		{"ERROR: could not extend file: No space left on device (SQLSTATE 53100)", drivers.ErrorDiskFull},
		{`ERROR: syntax error at or near "UPDAT" (SQLSTATE 42601)`, drivers.ErrorOther},
		{"row 40001 missing", drivers.ErrorOther},
	} {
		if got := drivers.ClassifyError(New(Name), errors.New(tc.msg)); got != tc.want {
			t.Errorf("ClassifyError(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
