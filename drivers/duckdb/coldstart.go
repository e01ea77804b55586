package duckdb

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
)

var _ drivers.ColdStarter = (*backend)(nil)

// ColdStart implements drivers.ColdStarter: closing the database is its
// restart (its buffer manager goes with it); its files are the database
// and its WAL.
func (b *backend) ColdStart(context.Context) (drivers.ColdStart, error) {
	return drivers.ColdStart{Files: []string{b.path, b.path + ".wal"}}, nil
}
