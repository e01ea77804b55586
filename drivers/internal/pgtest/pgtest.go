// Package pgtest holds what the tests of the PostgreSQL-wire packages
// (drivers/pgwire, drivers/postgres) share: the server they reach and the
// two kinds of process that hold raw sessions.
package pgtest

import (
	"os"
	"runtime"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// DSNEnv names the environment variable with the test server's DSN; the
// tests that need a server skip without it.
const DSNEnv = "MENTAT_SPEC_PG_DSN"

// DSN returns the test server's DSN, or skips t.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		t.Skipf("%s is not set; start a cluster with: export %s=$(scripts/pg.sh up)", DSNEnv, DSNEnv)
	}
	return dsn
}

// ProcessKinds are the two ways a process holds raw sessions: apply's own
// (two spare Ps) and a worker's (drivers.SetClientProcess: no spare P).
var ProcessKinds = []struct {
	Name   string
	Client bool
}{{"engine process", false}, {"worker process", true}}

// AsProcess makes this test process one of kind client for the test: a
// worker process also starts with GOMAXPROCS 1 (its share of two CPUs at
// two workers or more), so its raw sessions hold every P there is.
func AsProcess(t *testing.T, client bool) {
	if !client {
		return
	}
	procs := runtime.GOMAXPROCS(1)
	drivers.SetClientProcess(true)
	t.Cleanup(func() {
		drivers.SetClientProcess(false)
		runtime.GOMAXPROCS(procs)
	})
}
