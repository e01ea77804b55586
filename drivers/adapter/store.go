package adapter

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

// storePath is the store the adapter is told to open: the path option
// made absolute (the adapter may run in another directory), else
// <DataDir>/<backend>-<scale>, else "" (a store the adapter finds by its
// own options, a server's).
func storePath(cfg drivers.Config) (string, error) {
	if p := cfg.Options["path"]; p != "" {
		return filepath.Abs(p)
	}
	if cfg.DataDir == "" {
		return "", nil
	}
	file := cfg.Backend
	if cfg.Scale != "" {
		file += "-" + cfg.Scale
	}
	if file == "" || strings.ContainsAny(file, `/\`) || strings.HasPrefix(file, ".") {
		return "", fmt.Errorf("backend and scale names %q cannot form a file name inside DataDir", file)
	}
	return filepath.Abs(filepath.Join(cfg.DataDir, file))
}

// LockStore implements drivers.StoreLocker: a store at a path is one
// run's at a time (the lock file beside it); one without a path is the
// adapter's business.
func (adapterDriver) LockStore(ctx context.Context, cfg drivers.Config, w storelock.Wait) (storelock.Lock, error) {
	p, err := storePath(cfg)
	if err != nil {
		return nil, fmt.Errorf("adapter backend %q: %w", cfg.Backend, err)
	}
	if p == "" {
		return noLock{}, nil
	}
	return drivers.LockFile(ctx, p, w)
}

type noLock struct{}

func (noLock) Release() error { return nil }
