package sqlite

import (
	"context"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// Every connection the backend opens (sessions, readers, the loader's,
// its own) has the extension loaded and the session setup run.
func TestExtensionsEverySession(t *testing.T) {
	pcre := drivertest.NeedSQLitePCRE(t)
	b := openT(t, drivers.Config{Extensions: []drivers.Extension{{Path: pcre}},
		SessionSetup: []string{"PRAGMA cache_size = -4242"}})
	drivertest.Exec(t, drivertest.Session(t, b), "CREATE TABLE t (s TEXT); INSERT INTO t VALUES ('abc'), ('xyz'), ('abd')")
	for i := 0; i < 3; i++ {
		s := drivertest.Session(t, b)
		if got := drivertest.Rows(t, s, "SELECT count(*) FROM t WHERE s REGEXP ?", "^ab[cd]$"); got[0][0] != int64(2) {
			t.Fatalf("session %d: REGEXP matched %v rows, want 2", i, got[0][0])
		}
		if got := drivertest.Rows(t, s, "PRAGMA cache_size"); got[0][0] != int64(-4242) {
			t.Fatalf("session %d: cache_size %v: the session setup did not run", i, got[0][0])
		}
	}
	r, err := b.ReaderSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := drivertest.Rows(t, r, "SELECT count(*) FROM t WHERE s REGEXP 'y'"); got[0][0] != int64(1) {
		t.Fatalf("reader: REGEXP matched %v rows, want 1", got[0][0])
	}
	facts, err := b.ExtensionFacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := drivers.FileSHA256(pcre)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"extension.0.path": pcre, "extension.0.sha256": sum}
	for _, f := range facts {
		if w, ok := want[f.Key]; ok && f.Value == w {
			delete(want, f.Key)
		}
	}
	if len(want) > 0 {
		t.Fatalf("facts %v lack %v", facts, want)
	}
}

// A missing file, a wrong entry point and a name without a file are
// refused by CheckExtensions and Open, naming the file and SQLite's
// error, and Open creates no store.
func TestExtensionsRefused(t *testing.T) {
	pcre := drivertest.NeedSQLitePCRE(t)
	cases := []struct {
		name string
		ext  drivers.Extension
		want []string
	}{
		{"missing file", drivers.Extension{Path: "/nonexistent/mentat.so"}, []string{`"test"`, "/nonexistent/mentat.so", "no such file"}},
		{"wrong entry point", drivers.Extension{Path: pcre, EntryPoint: "sqlite3_nope_init"}, []string{pcre, "sqlite3_nope_init", "undefined symbol"}},
		{"name only", drivers.Extension{Name: "pcre"}, []string{`"pcre"`, "give its path"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := drivers.Config{Backend: "test", DataDir: t.TempDir(), Extensions: []drivers.Extension{tc.ext}}
			drivertest.ExtensionRefused(t, New(), cfg, tc.want, "test.sqlite")
		})
	}
}
