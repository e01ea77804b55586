package sqlite

import (
	"context"
	"database/sql/driver"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.EnvReporter = (*backend)(nil)

// EnvFacts returns the library's compile options (PRAGMA compile_options),
// which decide, among others, threading and the default cache and page
// sizes.
func (b *backend) EnvFacts(ctx context.Context) ([]drivers.Fact, error) {
	var opts []string
	err := b.adminQuery(ctx, "compile options", "PRAGMA compile_options", nil, func(v []driver.Value) error {
		if len(v) > 0 {
			opts = append(opts, text(v[0]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []drivers.Fact{{Key: "compile_options", Value: strings.Join(opts, " ")}}, nil
}

// DetailedKeys: the compile options are one line, the library's whole build.
func (sqliteDriver) DetailedKeys() []string { return []string{"compile_options"} }
func (sqliteDriver) DetailedName() string   { return "SQLite's compile options" }
