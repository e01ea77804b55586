package kind

import (
	"context"

	"github.com/hashicorp/hcl/v2"

	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/drivers"
)

// WriteEnv is what a kind that writes needs besides Env: plain sessions,
// a query's statements bound for the backend, the dataset's write
// generators, and a way to record which writes committed so the checks
// after the scenario see the truth those writes lead to. The runner's
// Env implements it; a kind asserts it with env.(kind.WriteEnv).
type WriteEnv interface {
	Env
	// Driver names the cell's driver (a kind may enforce a rule per
	// database, e.g. one writer for SQLite and DuckDB).
	Driver() string
	// ClassifyError is the driver's class of an error of its backend:
	// contention is retried and counted by class.
	ClassifyError(err error) drivers.ErrorClass
	// Session opens a session of its own; the caller closes it.
	Session(ctx context.Context) (drivers.Session, error)
	// Statements returns a query's text split into statements, each with
	// its markers bound for the backend and the names of its parameters
	// in marker order.
	Statements(query string) ([]Statement, error)
	// Writes is the dataset's write generators at this scale.
	Writes() *writes.Writes
	// NextWrite is the number of writes of generator already committed to
	// the store in this run: a writer starts there, so write k is one
	// write per store.
	NextWrite(generator string) int64
	// Log appends a line to logs/<name>.log.
	Log(name, format string, args ...any)
	// Committed records that writes 0..n-1 of generator committed, in
	// order; inDoubt says write n failed while committing, so it may or may
	// not have. Called again, it replaces the earlier record.
	Committed(generator string, n int64, inDoubt bool)
}

// Statement is one statement of a query, bound for a backend.
type Statement struct {
	SQL   string
	Names []string // parameter names, one per marker
	// Answer is the query's answer format ("rows", or "json"/"edn": one
	// value to decode with engine/answer) and Columns its tuples' names,
	// so a kind reading the rows reads them as the checks do.
	Answer  string
	Columns []string
}

// WriteGenerators is implemented by Definitions whose scenario runs the
// dataset's write generators: the plan checks they are declared and that
// no check reads a truth the writes make unknowable.
type WriteGenerators interface {
	WriteGenerators() []string
}

// WriteFormChecker is implemented by Definitions that run only some forms
// of write generator (an update of one attribute, say): the plan refuses
// a scenario running a generator its kind cannot.
type WriteFormChecker interface {
	CheckWrite(decl writes.Decl) error
}

// BoundQuery is a query whose parameters a kind binds itself, not from
// the query's params: write_mixed's write and verify queries.
type BoundQuery struct {
	Query   string
	Allowed []string // the parameters the kind binds
	Text    string   // what a diagnostic says is bound
}

// QueryBinder is implemented by definitions that run bound queries:
// validation refuses a parameter they do not bind, since every call of
// the query would fail.
type QueryBinder interface {
	BoundQueries() []BoundQuery
}

// WriteRanger is implemented by definitions that name a write generator
// in an attribute of their own: a mistake in the name is reported there.
type WriteRanger interface {
	WriteRange(generator string) (hcl.Range, bool)
}
