package runner

import (
	"fmt"
	"path/filepath"

	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// storeFull words a full disk under a file store: which directory, how
// much is free, and what the next run does with the store.
func (r *run) storeFull(pc *plan.Cell, err error) error {
	path, isFile := r.storeFile(pc)
	if !isFile || !host.DiskFull(err) {
		return err
	}
	dir := filepath.Dir(path)
	free := "unknown"
	if n, ferr := host.FreeBytes(host.ExistingDir(dir)); ferr == nil {
		free = humanBytes(n)
	}
	return fmt.Errorf("the data directory %s is full (no space left on device, or a file size limit; %s free): "+
		"the half-loaded store is this tool's and the next run reloads it: %w", dir, free, err)
}
