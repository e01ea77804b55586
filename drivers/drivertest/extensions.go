package drivertest

import (
	"os"
	"testing"
)

// SQLitePCRE is Debian's sqlite3-pcre extension, a real third-party
// SQLite extension (REGEXP through PCRE) the extension tests load.
const SQLitePCRE = "/usr/lib/sqlite3/pcre.so"

// NeedSQLitePCRE returns SQLitePCRE, or skips the test where it is not
// installed; in CI (CI set) it fails instead, since scripts/sqlite-pcre.sh
// installs it there.
func NeedSQLitePCRE(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(SQLitePCRE); err == nil {
		return SQLitePCRE
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no %s in CI: scripts/sqlite-pcre.sh installs it (apt-get install sqlite3-pcre)", SQLitePCRE)
	}
	t.Skipf("no %s (install it with: apt-get install sqlite3-pcre); CI never skips this test", SQLitePCRE)
	return ""
}
