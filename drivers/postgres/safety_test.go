package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// TestDSNNeverInParseError: a DSN that does not parse is reported without
// any part of it: not the password, and not the user, host or database the
// parser would otherwise quote back with only the password masked.
func TestDSNNeverInParseError(t *testing.T) {
	const user, host, pw, db = "dsnuser7", "dsn-host.invalid", "Pw-9z1", "dsndb7"
	dsns := []string{
		"postgres://" + user + ":" + pw + "@" + host + ":99999/" + db,
		"postgres://" + user + ":" + pw + "@" + host + ":notaport/" + db,
		"host=" + host + " port=99999 user=" + user + " password=" + pw + " dbname=" + db,
		"host=" + host + " port=x user=" + user + " password='" + pw + "' dbname=" + db,
	}
	for _, dsn := range dsns {
		_, err := New(Name).Open(context.Background(), drivers.Config{Scale: "xs", Options: map[string]string{"dsn": dsn}})
		if err == nil {
			t.Fatalf("Open(%q) succeeded", dsn)
		}
		msg := fmt.Sprintf("%v %+v", err, err)
		for _, part := range []string{pw, user, host, db} {
			if strings.Contains(msg, part) {
				t.Errorf("the error shows %q: %s", part, msg)
			}
		}
		if !strings.Contains(msg, "dsn") || !strings.Contains(msg, "port") {
			t.Errorf("the error does not say what is wrong: %s", msg)
		}
	}
}

// TestForeignDatabaseUntouched: opening a database the run did not create,
// with settings, stores nothing in it (no ALTER DATABASE ... SET): the
// settings apply to the run's sessions only.
func TestForeignDatabaseUntouched(t *testing.T) {
	dsn := testDSN(t)
	ctx := testCtx(t)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := testDBName(t)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop: %v", err)
		}
		admin.Close(ctx)
	})
	stored := func() string {
		var s string
		err := admin.QueryRow(ctx, `SELECT coalesce(string_agg(array_to_string(setconfig, ','), ';'), '')
			FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = $1`, name).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := stored()
	b, err := New(Name).Open(ctx, drivers.Config{Scale: "xs", Options: map[string]string{"dsn": dsn, "database": name},
		Settings: map[string]string{"work_mem": "7MB", "random_page_cost": "1.5"}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Created() {
		t.Fatal("Created() = true for a database that existed")
	}
	b.Close()
	if after := stored(); after != before {
		t.Errorf("settings stored in a database the run did not create: %q, was %q", after, before)
	}
}

// TestLostConnectionIsClassified: a call on a connection the server ended
// fails with an error that wraps drivers.ErrConnLost, so the engine counts
// one error per client and ends the point instead of retrying per call.
func TestLostConnectionIsClassified(t *testing.T) {
	testDSN(t)
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			st, err := s.Prepare(ctx, "SELECT 1")
			if err != nil {
				t.Fatal(err)
			}
			pid := backendPID(t, s)
			killer, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer killer.Close()
			if err := killer.Exec(ctx, fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			if _, err := st.Query(ctx, nil, nil); !errors.Is(err, drivers.ErrConnLost) {
				t.Fatalf("query on a killed connection: %v; want an error wrapping drivers.ErrConnLost", err)
			}
		})
	}
}

// TestCutQueryGoneWhenCallReturns: a query cut at its ceiling (its context
// ends) is no longer running on the server when the call returns, so the
// next measured point never overlaps it.
func TestCutQueryGoneWhenCallReturns(t *testing.T) {
	dsn := testDSN(t)
	// The worst case: the connection's deadline passes before the cancel
	// request reached the server, so the client gives up on the connection
	// while the server still runs the query.
	old := cancelDeadlineDelay
	cancelDeadlineDelay = 0
	defer func() { cancelDeadlineDelay = old }()
	watcher, err := pgx.Connect(testCtx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(context.Background())
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			st, err := s.Prepare(ctx, "SELECT pg_sleep(5)")
			if err != nil {
				t.Fatal(err)
			}
			pid := backendPID(t, s)
			for i := 0; i < 3; i++ {
				cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				_, err := st.Query(cctx, nil, nil)
				cancel()
				if err == nil {
					t.Fatal("pg_sleep(5) was not cut at 200ms")
				}
				var n int
				if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE state = 'active' AND query LIKE '%pg_sleep(5)%' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 0 {
					t.Fatalf("cut %d: %d pg_sleep(5) still active on the server after the call returned (session pid %d)", i, n, pid)
				}
			}
		})
	}
}
