package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// pg_trgm from the server's contrib is created in the benchmark
// database, and the session setup is in force on every session (each
// io variant's own, the loader's, the backend's own) and after a
// reconnect; the extension's identity is its pg_extension row.
func TestExtensionsAndSessionSetup(t *testing.T) {
	dsn := testDSN(t)
	for _, v := range []variant{{ProtocolExtended, IOPoller}, {ProtocolSimple, IORaw}} {
		t.Run(v.String(), func(t *testing.T) {
			ctx := testCtx(t)
			cfg := drivers.Config{Backend: "postgres", Scale: "test",
				Options:      map[string]string{"dsn": dsn, "database": testDBName(t), "protocol": v.protocol, "io": v.io},
				Extensions:   []drivers.Extension{{Name: "pg_trgm"}},
				SessionSetup: []string{"SET pg_trgm.similarity_threshold = 0.42", "SET application_name = 'mentat-ext-test'"}}
			if err := New(Name).(drivers.ExtensionChecker).CheckExtensions(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			be, err := New(Name).Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			b := be.(*Backend)
			t.Cleanup(func() {
				dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				b.Drop(dctx)
			})
			for i := 0; i < 3; i++ {
				s, err := b.Session(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				st, err := s.Prepare(ctx, "SELECT current_setting('pg_trgm.similarity_threshold'), current_setting('application_name'), 'mentat' % 'mentats'")
				if err != nil {
					t.Fatal(err)
				}
				var rows [][]any
				if _, err := st.Query(ctx, nil, &rows); err != nil {
					t.Fatal(err)
				}
				if rows[0][0] != "0.42" || rows[0][1] != "mentat-ext-test" || rows[0][2] != true {
					t.Fatalf("session %d: %v, want [0.42 mentat-ext-test true]", i, rows[0])
				}
			}
			facts, err := b.ExtensionFacts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range facts {
				got[f.Key] = f.Value
			}
			if got["extension.0.name"] != "pg_trgm" || got["extension.0.extversion"] == "" || got["extension.0.extversion"] == "not created" {
				t.Fatalf("facts %v: want pg_trgm with its extversion", got)
			}
		})
	}
}

// An extension the server lacks, or a file, is refused naming it.
func TestExtensionsRefused(t *testing.T) {
	dsn := testDSN(t)
	ctx := testCtx(t)
	cases := []struct {
		ext  drivers.Extension
		want string
	}{
		{drivers.Extension{Name: "mentat_no_such_ext"}, "mentat_no_such_ext"},
		{drivers.Extension{Name: "pg_trgm", Version: "0.0"}, "pg_trgm (version 0.0)"},
		{drivers.Extension{Path: "/x/pg_mentat.so"}, "/x/pg_mentat.so"},
	}
	for _, tc := range cases {
		db := testDBName(t)
		cfg := drivers.Config{Backend: "pg", Scale: "test", Options: map[string]string{"dsn": dsn, "database": db},
			Extensions: []drivers.Extension{tc.ext}}
		err := New(Name).(drivers.ExtensionChecker).CheckExtensions(ctx, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("CheckExtensions(%s): %v, want it to name %q", tc.ext, err, tc.want)
		}
		if _, err := New(Name).Open(ctx, cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("Open(%s): %v, want it to name %q", tc.ext, err, tc.want)
		}
		if exists(t, dsn, db) {
			t.Fatalf("Open(%s) left database %s behind", tc.ext, db)
		}
	}
}

// On a database Open did not create, the extensions wait for
// ApplySettings (the engine has found the database is its own): a
// foreign database the engine refuses is left without them.
func TestExtensionsHeldBackOnAForeignDatabase(t *testing.T) {
	dsn := testDSN(t)
	ctx := testCtx(t)
	db := testDBName(t)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)") })
	cfg := drivers.Config{Backend: "pg", Scale: "test", Options: map[string]string{"dsn": dsn, "database": db},
		Extensions: []drivers.Extension{{Name: "pg_trgm"}}}
	be, err := New(Name).Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	b := be.(*Backend)
	created := func() string {
		facts, err := b.ExtensionFacts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range facts {
			if f.Key == "extension.0.extversion" {
				return f.Value
			}
		}
		return ""
	}
	if v := created(); v != "not created" {
		t.Fatalf("before ApplySettings: pg_trgm %q, want not created", v)
	}
	if err := b.ApplySettings(ctx); err != nil {
		t.Fatal(err)
	}
	if v := created(); v == "not created" || v == "" {
		t.Fatalf("after ApplySettings: pg_trgm %q, want its version", v)
	}
}
