package duckdb

import (
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// ClassifyError reads DuckDB's wording: its conflicts are TransactionContext
// errors, but so are misuses (a BEGIN inside a transaction) that trying
// again cannot mend, and an error from a worker process is text only.
func (duckDriver) ClassifyError(err error) drivers.ErrorClass {
	m := strings.ToLower(err.Error())
	switch {
	case strings.Contains(m, "transaction conflict"), strings.Contains(m, "conflict on"),
		strings.Contains(m, "write-write conflict"):
		return drivers.ErrorConflict
	}
	return drivers.ErrorOther
}
