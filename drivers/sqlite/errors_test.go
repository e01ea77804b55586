package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// A second writer meets SQLite's lock: the real error is busy, typed and
// as the text a worker process reports.
func TestClassifyErrorBusy(t *testing.T) {
	b := openT(t, drivers.Config{Settings: map[string]string{"busy_timeout": "0"}})
	s1, s2 := drivertest.Session(t, b), drivertest.Session(t, b)
	drivertest.Exec(t, s1, "CREATE TABLE t (x INTEGER)")
	drivertest.Exec(t, s1, "BEGIN IMMEDIATE")
	err := s2.Exec(context.Background(), "BEGIN IMMEDIATE")
	drivertest.Exec(t, s1, "ROLLBACK")
	if err == nil {
		t.Fatal("a second writer began while the first held the lock")
	}
	d := New()
	for _, e := range []error{err, fmt.Errorf("write 3: %w", err), errors.New(err.Error())} {
		if got := drivers.ClassifyError(d, e); got != drivers.ErrorBusy {
			t.Errorf("ClassifyError(%q) = %q, want busy", e, got)
		}
	}
}

func TestClassifyErrorText(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want drivers.ErrorClass
	}{
		{`sqlite backend "s": exec COMMIT: database is locked`, drivers.ErrorBusy},
		{"SQLITE_BUSY: cannot commit", drivers.ErrorBusy},
		{"database table is locked: cur_text", drivers.ErrorBusy},
		{"database or disk is full", drivers.ErrorDiskFull},
		{`near "UPDAT": syntax error`, drivers.ErrorOther},
	} {
		if got := drivers.ClassifyError(New(), errors.New(tc.msg)); got != tc.want {
			t.Errorf("ClassifyError(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if drivers.ClassifyError(New(), nil) != drivers.ErrorOther {
		t.Error("nil error classified")
	}
}
