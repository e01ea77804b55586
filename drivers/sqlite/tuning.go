package sqlite

/*
struct sqlite3;
int sqlite3_config(int, ...);
int sqlite3_db_config(struct sqlite3*, int, ...);

// sqlite3_config and sqlite3_db_config are variadic, which cgo cannot
// call directly.
static int mentat_memstatus(int on) { return sqlite3_config(9, on); } // SQLITE_CONFIG_MEMSTATUS
static int mentat_qpsg(struct sqlite3* db, int on) {
	return sqlite3_db_config(db, 1007, on, (int*)0); // SQLITE_DBCONFIG_ENABLE_QPSG
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// memStatus says whether SQLite's allocation statistics are off.
var memStatus error

func init() {
	// By default SQLite counts every allocation under one process-wide
	// mutex (SQLITE_CONFIG_MEMSTATUS): the clients of one process would
	// queue on it where one process per client does not. It can only be
	// set before the library initialises, that is before the first open.
	// Without it sqlite3_memory_used and the soft heap limit do nothing;
	// the engine uses neither.
	if rc := C.mentat_memstatus(0); rc != 0 {
		memStatus = fmt.Errorf("sqlite3_config(MEMSTATUS, 0) returned %d", int(rc))
	}
}

// StablePlans turns on the query planner stability guarantee on c, as
// the driver does on every connection it opens (unless stable_plans is
// "off"); a hand-written go-sqlite3 loop that a benchmark compares with
// the engine calls it too, to get the same plans. Without it SQLite marks
// a statement whose plan might depend on a parameter's value (a UNION ALL
// subquery filtered by a parameter, as the pull query is) and compiles it
// again each time a new value is bound: the parse and the planning then
// run at every call, and a measured call is mostly compilation. With it a
// statement keeps the plan it was prepared with, the plan EXPLAIN shows.
func StablePlans(c *sqlite3.SQLiteConn) error {
	db := dbHandle(c)
	if db == nil {
		return fmt.Errorf("the go-sqlite3 connection has no database handle: plans cannot be kept stable")
	}
	return setStablePlans(db, true)
}

// stablePlansOption reads the stable_plans option: "on" (the default) or
// "off", SQLite's own behaviour, for a spec that wants to measure the
// recompilation an application without the guarantee pays.
func stablePlansOption(opts map[string]string) (bool, error) {
	switch v, ok := opts["stable_plans"]; {
	case !ok || v == "on" || v == "true":
		return true, nil
	case v == "off" || v == "false":
		return false, nil
	default:
		return false, fmt.Errorf("option stable_plans = %q: want \"on\" or \"off\"", v)
	}
}

// setStablePlans sets the guarantee on or off (off: SQLite's default).
func setStablePlans(db unsafe.Pointer, on bool) error {
	v := C.int(0)
	if on {
		v = 1
	}
	if rc := C.mentat_qpsg((*C.struct_sqlite3)(db), v); rc != 0 {
		return fmt.Errorf("sqlite3_db_config(ENABLE_QPSG) returned %d", int(rc))
	}
	return nil
}
