package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/sqlite"
)

// The backend's explain statement, on a real SQLite session: :q is the
// query's text, every other parameter the query's value in the explained
// call; one the query does not bind is an error naming it.
func TestStatement(t *testing.T) {
	ctx := context.Background()
	be := drivertest.Open(t, sqlite.New(), drivers.Config{})
	s := drivertest.Session(t, be)
	q := Query{Name: "q1", SQL: "SELECT e FROM users WHERE email = ?", Names: []string{"email"},
		Args: []any{"someone@example.com"}, Text: "SELECT e FROM users WHERE email = :email"}
	cases := []struct {
		stmt, want, err string
	}{
		{stmt: "SELECT 'plan', :email, instr(:q, ':email') > 0 UNION ALL SELECT 'second', 2, 0", want: "plan\tsomeone@example.com\t1\nsecond\t2\t0"},
		{stmt: "SELECT :q, :email", want: q.Text + "\tsomeone@example.com"},
		{stmt: "SELECT NULL, x'6869'", want: "\thi"},
		{stmt: "SELECT :q, :e", err: ":e, which query q1 does not"},
		{stmt: "SELECT * FROM no_such_table", err: "no_such_table"},
	}
	for _, tc := range cases {
		got, err := Statement(ctx, s, be.Placeholder, tc.stmt, q)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.stmt, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.stmt, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s: explained %q, want %q", tc.stmt, got, tc.want)
		}
	}
}
