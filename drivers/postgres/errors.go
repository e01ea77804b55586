package postgres

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// sqlstates are the SQLSTATE codes with a class of their own.
var sqlstates = map[string]drivers.ErrorClass{
	"40001": drivers.ErrorSerialization, // serialization_failure
	"40P01": drivers.ErrorDeadlock,      // deadlock_detected
	"55P03": drivers.ErrorTimeout,       // lock_not_available (lock_timeout, NOWAIT)
	"57014": drivers.ErrorTimeout,       // query_canceled (statement_timeout)
	"53100": drivers.ErrorDiskFull,      // disk_full
}

// ClassifyError reads the server's SQLSTATE, or for an error that lost
// its type (wrapped as text, or from a worker process) the code pgx
// writes into the text, then the server's wording.
func (pgDriver) ClassifyError(err error) drivers.ErrorClass {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return sqlstates[pe.Code]
	}
	m := strings.ToLower(err.Error())
	for code, class := range sqlstates {
		if strings.Contains(m, "(sqlstate "+strings.ToLower(code)+")") {
			return class
		}
	}
	switch {
	case strings.Contains(m, "could not serialize access"):
		return drivers.ErrorSerialization
	case strings.Contains(m, "deadlock detected"):
		return drivers.ErrorDeadlock
	}
	return drivers.ErrorOther
}
