package sqlite

import (
	"errors"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// ClassifyError reads SQLite's result code, or for an error that lost its
// type (wrapped as text, or from a worker process) SQLite's wording.
func (sqliteDriver) ClassifyError(err error) drivers.ErrorClass {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return drivers.ErrorBusy
		case sqlite3.ErrFull:
			return drivers.ErrorDiskFull
		}
	}
	m := strings.ToLower(err.Error())
	switch {
	case strings.Contains(m, "database is locked"), strings.Contains(m, "database table is locked"),
		strings.Contains(m, "sqlite_busy"), strings.Contains(m, "sqlite_locked"):
		return drivers.ErrorBusy
	case strings.Contains(m, "database or disk is full"):
		return drivers.ErrorDiskFull
	}
	return drivers.ErrorOther
}
