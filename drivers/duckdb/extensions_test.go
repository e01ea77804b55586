package duckdb

import (
	"context"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
)

// A built-in extension named in extensions is loaded on every session,
// the session setup runs on each, and its duckdb_extensions() row is the
// identity the backend reports.
func TestExtensionsBuiltIn(t *testing.T) {
	cfg := drivers.Config{Extensions: []drivers.Extension{{Name: "json"}}, SessionSetup: []string{"SET threads = 1"}}
	if err := New().(drivers.ExtensionChecker).CheckExtensions(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	b := openT(t, cfg)
	for i := 0; i < 2; i++ {
		s := drivertest.Session(t, b)
		if got := drivertest.Rows(t, s, "SELECT json_extract('{\"a\": 7}', '$.a')::INTEGER, current_setting('threads')"); got[0][0] != int32(7) && got[0][0] != int64(7) || got[0][1] != int64(1) {
			t.Fatalf("session %d: %v: json or the session setup missing", i, got)
		}
	}
	facts, err := b.ExtensionFacts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range facts {
		got[f.Key] = f.Value
	}
	for k, v := range map[string]string{"extension.0.name": "json", "extension.0.loaded": "true", "extension.0.installed": "true"} {
		if got[k] != v {
			t.Fatalf("facts %v: %s = %q, want %q", got, k, got[k], v)
		}
	}
	if got["extension.0.version"] == "" {
		t.Fatalf("facts %v: no version", got)
	}
}

// A missing file is refused by CheckExtensions and Open, naming the file
// and DuckDB's error, and Open leaves no store behind; an entry point is
// not DuckDB's.
func TestExtensionsRefused(t *testing.T) {
	cases := []struct {
		name string
		ext  drivers.Extension
		want []string
	}{
		{"missing file", drivers.Extension{Path: "/nonexistent/mentat.duckdb_extension"}, []string{`"test"`, "/nonexistent/mentat.duckdb_extension", "IO Error"}},
		{"entry point", drivers.Extension{Path: "/x/y.duckdb_extension", EntryPoint: "init"}, []string{`"test"`, "/x/y.duckdb_extension", "not DuckDB's"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := drivers.Config{Backend: "test", DataDir: t.TempDir(), Extensions: []drivers.Extension{tc.ext}, AllowUnsignedExtensions: true}
			drivertest.ExtensionRefused(t, New(), cfg, tc.want, "test.duckdb")
		})
	}
}

// allow_unsigned_extensions is set on the database as it opens (DuckDB
// refuses it later); without it the database keeps refusing unsigned files.
func TestAllowUnsignedExtensions(t *testing.T) {
	for _, allow := range []bool{false, true} {
		b := openT(t, drivers.Config{AllowUnsignedExtensions: allow})
		got := drivertest.Rows(t, drivertest.Session(t, b), "SELECT current_setting('allow_unsigned_extensions')")
		if got[0][0] != allow {
			t.Errorf("allow_unsigned_extensions = %v with the option %v", got[0][0], allow)
		}
	}
}
