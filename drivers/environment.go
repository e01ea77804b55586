package drivers

import (
	"context"
	"strings"
)

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

// DetailedSettings is implemented by drivers whose EnvReporter lists the
// database's whole configuration: env.txt keeps those lines, the summary
// counts them and history does not chart them one by one.
type DetailedSettings interface {
	// DetailedKeys are the EnvFacts keys that are such details: a key
	// ending in "." is a prefix, any other a whole key.
	DetailedKeys() []string
	// DetailedName is how the summary names them ("SQLite's compile options").
	DetailedName() string
}

// DetailedKeys is what the driver registered as name declares detailed
// settings (none for a driver that does not implement DetailedSettings).
func (r *Registry) DetailedKeys(name string) []string {
	if d, ok := r.Lookup(name); ok {
		if ds, ok := d.(DetailedSettings); ok {
			return ds.DetailedKeys()
		}
	}
	return nil
}

// Detailed reports whether key (an EnvFacts key, relative to the backend
// and scale) is a detailed setting of one of the registered drivers, and
// that driver's name for them. The keys of different databases differ, so
// a key read back from env.txt needs no driver name beside it.
func (r *Registry) Detailed(key string) (string, bool) {
	for _, name := range r.Names() {
		d, _ := r.Lookup(name)
		ds, ok := d.(DetailedSettings)
		if !ok {
			continue
		}
		for _, k := range ds.DetailedKeys() {
			if key == k || strings.HasSuffix(k, ".") && strings.HasPrefix(key, k) {
				return ds.DetailedName(), true
			}
		}
	}
	return "", false
}
