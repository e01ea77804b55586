package duckdb

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.EnvReporter = (*backend)(nil)

// EnvFacts returns every setting in force (duckdb_settings()) on a
// connection that applied the configured settings, as every session does.
func (b *backend) EnvFacts(ctx context.Context) ([]drivers.Fact, error) {
	rows, err := b.adminQuery(ctx, "settings in force", "SELECT name, value::VARCHAR FROM duckdb_settings() ORDER BY name", nil)
	if err != nil {
		return nil, err
	}
	facts := make([]drivers.Fact, 0, len(rows))
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		v := ""
		if r[1] != nil {
			v = fmt.Sprint(r[1])
		}
		facts = append(facts, drivers.Fact{Key: "duckdb_setting." + fmt.Sprint(r[0]), Value: v})
	}
	return facts, nil
}

// DetailedKeys: every row of duckdb_settings() is a line of its own.
func (duckDriver) DetailedKeys() []string { return []string{"duckdb_setting."} }
func (duckDriver) DetailedName() string   { return "DuckDB's settings" }
