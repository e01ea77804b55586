package results

import (
	"errors"
	"io/fs"
)

// The checks.txt line names the engine writes itself.
const (
	// ColdStartCheck names the checks.txt line of each cold_warm point:
	// PASS with what was restarted and how the OS page cache was emptied
	// of the store, or SKIP with why its calls are not cold (its cold_
	// rows are then not written).
	ColdStartCheck = "cold start"
	// CrossBackendSuffix ends the name of a cross-backend check line: the
	// check's answers compared between the backends that ran it at a
	// scale.
	CrossBackendSuffix = " (cross-backend)"
)

// MissingIsEmpty treats a missing file as empty: it drops an error that
// says the file does not exist.
func MissingIsEmpty(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// LastPerKey keeps the last row of each key (a rerun supersedes), at the
// position of that last row.
func LastPerKey[T any, K comparable](rows []T, key func(T) K) []T {
	last := map[K]int{}
	for i, r := range rows {
		last[key(r)] = i
	}
	out := rows[:0:0]
	for i, r := range rows {
		if last[key(r)] == i {
			out = append(out, r)
		}
	}
	return out
}
