package runner

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// fullMessages are how the embedded databases word a full disk or a file
// size limit in their errors, which carry no errno.
var fullMessages = []string{
	"no space left on device",  // the C library's text of ENOSPC (DuckDB quotes it)
	"database or disk is full", // SQLite's SQLITE_FULL
	"file too large",           // EFBIG
	"disk quota exceeded",      // EDQUOT
}

// diskFull reports whether err says a file could not grow: a full disk,
// a quota or a file size limit.
func diskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range fullMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// storeFull words a full disk under a file store: which directory, how
// much is free, and what the next run does with the store.
func (r *run) storeFull(pc *plan.Cell, err error) error {
	path, isFile := r.storeFile(pc)
	if !isFile || !diskFull(err) {
		return err
	}
	dir := filepath.Dir(path)
	free := "unknown"
	if n, ferr := freeBytes(existingDir(dir)); ferr == nil {
		free = humanBytes(n)
	}
	return fmt.Errorf("the data directory %s is full (no space left on device, or a file size limit; %s free): "+
		"the half-loaded store is this tool's and the next run reloads it: %w", dir, free, err)
}
