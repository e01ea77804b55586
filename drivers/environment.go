package drivers

import "context"

// Fact is one line a backend reports about itself for env.txt.
type Fact struct {
	Key, Value string
}

// EnvReporter reports what the database has in force beyond the settings a
// spec names: PostgreSQL's non-default pg_settings, SQLite's compile
// options, DuckDB's settings. Keys are relative (the engine prefixes them
// with the backend and scale).
type EnvReporter interface {
	EnvFacts(ctx context.Context) ([]Fact, error)
}

// StatementStats is implemented by backends whose server keeps statistics
// per statement (PostgreSQL's pg_stat_statements), so a slow point can be
// explained from the server's side.
type StatementStats interface {
	// ResetStatementStats clears the statistics before a point. An error
	// says why none are available (the module is not loaded), and the
	// engine records it instead of the statistics.
	ResetStatementStats(ctx context.Context) error
	// TopStatements returns the n statements of the largest total
	// execution time since the reset, as a text table.
	TopStatements(ctx context.Context, n int) (string, error)
}

// ServerLog is implemented by backends whose server writes a log file this
// process can read (a local server with a readable log).
type ServerLog interface {
	// ServerLogPath returns the server's current log file, or an error
	// saying why it cannot be read from here.
	ServerLogPath(ctx context.Context) (string, error)
}
