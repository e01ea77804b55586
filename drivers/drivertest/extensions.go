package drivertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
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

// ExtensionRefused checks that an extension cfg names and d cannot load
// is refused before anything runs: CheckExtensions says every text of
// want, Open fails naming want[1], and no store file (store, in
// cfg.DataDir) is left behind.
func ExtensionRefused(t *testing.T, d drivers.Driver, cfg drivers.Config, want []string, store string) {
	t.Helper()
	err := d.(drivers.ExtensionChecker).CheckExtensions(context.Background(), cfg)
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("CheckExtensions: %v, want it to say %q", err, w)
		}
	}
	if b, err := d.Open(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), want[1]) {
		if err == nil {
			b.Close()
		}
		t.Fatalf("Open: %v, want it to name %q", err, want[1])
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, store)); !os.IsNotExist(err) {
		t.Fatalf("Open left a store behind: %v", err)
	}
}
