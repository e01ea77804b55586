package duckdb

import (
	"context"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

var _ drivers.StoreLocker = duckDriver{}

// LockStore takes the lock file beside the database file: one run at a
// time loads, measures or writes it.
func (d duckDriver) LockStore(ctx context.Context, cfg drivers.Config, w storelock.Wait) (storelock.Lock, error) {
	return drivers.LockStoreFile(ctx, d, cfg, w)
}
