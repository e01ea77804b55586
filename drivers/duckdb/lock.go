package duckdb

import (
	"context"
	"fmt"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

var _ drivers.StoreLocker = duckDriver{}

// LockStore takes the lock file beside the database file: one run at a
// time loads, measures or writes it.
func (duckDriver) LockStore(ctx context.Context, cfg drivers.Config, w storelock.Wait) (storelock.Lock, error) {
	name := cfg.Backend
	if name == "" {
		name = Name
	}
	path, err := dbPath(cfg, name)
	if err != nil {
		return nil, fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	return drivers.LockFile(ctx, path, w)
}
