package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/drivertest"
	"github.com/mentat-spec/mentat-spec/drivers/internal/pgtest"
)

// The tests reach PostgreSQL only through MENTAT_SPEC_PG_DSN; each test
// works in its own database mentat_test_<random>, dropped at the end.
const dsnEnv = pgtest.DSNEnv

func TestMain(m *testing.M) {
	if os.Getenv(dsnEnv) == "" {
		fmt.Fprintf(os.Stderr, "note: %s is not set: the tests that need PostgreSQL skip.\n"+
			"  Start a throwaway cluster with: export %s=$(scripts/pg.sh up)  (stop it with scripts/pg.sh down);\n"+
			"  the Makefile does this in CI.\n", dsnEnv, dsnEnv)
	}
	code := m.Run()
	dropFixture() // the benchmarks' database
	os.Exit(code)
}

func testDSN(t testing.TB) string { t.Helper(); return pgtest.DSN(t) }

func testDBName(t testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "mentat_test_" + hex.EncodeToString(b[:])
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// variant is a combination of the options that change the query path.
type variant struct{ protocol, io string }

func (v variant) String() string { return v.protocol + "-" + v.io }

var variants = []variant{
	{ProtocolExtended, IOPoller}, {ProtocolSimple, IOPoller},
	{ProtocolExtended, IOBlocking}, {ProtocolSimple, IOBlocking},
	{ProtocolExtended, IOAuto}, {ProtocolSimple, IOAuto},
	{ProtocolExtended, IORaw}, {ProtocolSimple, IORaw},
}

// openTest opens a fresh database and drops it when the test ends.
func openTest(t testing.TB, v variant, settings map[string]string) *Backend {
	t.Helper()
	dsn := testDSN(t)
	cfg := drivers.Config{
		Backend:  "postgres",
		Scale:    "test",
		Options:  map[string]string{"dsn": dsn, "database": testDBName(t), "protocol": v.protocol, "io": v.io},
		Settings: settings,
	}
	b, err := New(Name).Open(testCtx(t), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	pb := b.(*Backend)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pb.Drop(ctx); err != nil {
			t.Errorf("Drop: %v", err)
		}
	})
	if !pb.Created() {
		t.Fatalf("Created() = false for a new database")
	}
	return pb
}

// pgFixtures are the conformance suite's PostgreSQL fixtures.
var pgFixtures = drivertest.Fixtures{SlowQuery: "SELECT pg_sleep(30)", KnownSetting: "work_mem"}

func TestConformance(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			drivertest.Run(t, pgFixtures, func(t *testing.T) drivers.Backend {
				return openTest(t, v, nil)
			})
		})
	}
}

func TestRegistered(t *testing.T) {
	if _, ok := drivers.Default.Lookup(Name); !ok {
		t.Fatal(`"postgres" is not registered in drivers.Default`)
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"dsn": "postgres://x@127.0.0.1:1/db", "bogus": "1", "path": "x"}, `unknown option(s) "bogus", "path"`},
		{map[string]string{"database": "x"}, `"dsn" is required`},
		{map[string]string{"dsn": "postgres://x@127.0.0.1:1/db", "protocol": "binary"}, `protocol = "binary"`},
		{map[string]string{"dsn": "postgres://x@127.0.0.1:1/db", "io": "uring"}, `io = "uring"`},
		{map[string]string{"dsn": "postgres://x@127.0.0.1:1/db", "database": strings.Repeat("d", 64)}, "longer than 63"},
	}
	for _, c := range cases {
		_, err := New(Name).Open(ctx, drivers.Config{Scale: "xs", Options: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%v) = %v, want an error containing %q", c.opts, err, c.want)
		}
	}
	o, err := parseOptions(Name, drivers.Config{Scale: "XS-1", Options: map[string]string{"dsn": "x"}})
	if err != nil || o.database != "mentat_xs_1" || o.protocol != ProtocolExtended {
		t.Errorf("defaults: %+v, %v; want database mentat_xs_1, protocol extended", o, err)
	}
}

func TestPasswordRedacted(t *testing.T) {
	const pw = "S3cret-Pw"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dsns := []string{
		"postgres://postgres:" + pw + "@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2",
		"postgres://postgres:" + pw + "@127.0.0.1:notaport/postgres",
		"postgres://postgres:" + pw + "@127.0.0.1:1/postgres?sslmode=bogus",
		"host=127.0.0.1 port=1 user=postgres password=" + pw + " sslmode=disable connect_timeout=2",
		"host=127.0.0.1 port=1 user=postgres password='" + pw + "' sslmode=nope",
	}
	for _, dsn := range dsns {
		_, err := New(Name).Open(ctx, drivers.Config{Scale: "xs", Options: map[string]string{"dsn": dsn}})
		if err == nil {
			t.Fatalf("Open of an unreachable DSN succeeded")
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(fmt.Sprintf("%+v", err), pw) {
			t.Errorf("error shows the password: %v", err)
		}
	}
	got := redactString("cannot parse `postgres://u:pa%40ss@h/db`: bad; password=abc x", dsnSecrets("postgres://u:pa%40ss@h/db"))
	if strings.Contains(got, "pa%40ss") || strings.Contains(got, "pa@ss") || strings.Contains(got, "abc") {
		t.Errorf("redactString left a password: %s", got)
	}
	// A server with a wrong password: the error may quote the DSN's user
	// and host, never the password.
	if dsn := os.Getenv(dsnEnv); dsn != "" {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		bad := fmt.Sprintf("postgres://%s:%s@%s:%d/no_such_db_%s?sslmode=disable", cfg.User, pw, cfg.Host, cfg.Port, "x")
		_, err = New(Name).Open(ctx, drivers.Config{Scale: "xs", Options: map[string]string{"dsn": bad}})
		if err == nil || strings.Contains(err.Error(), pw) {
			t.Errorf("Open with a missing database: %v", err)
		}
	}
}

func TestSettingsPerSession(t *testing.T) {
	settings := map[string]string{"work_mem": "7MB", "DateStyle": "SQL, DMY", "mentat.tag": "it's", "ignore_system_indexes": "on"}
	b := openTest(t, variants[0], settings)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"work_mem": "7MB", "DateStyle": "SQL, DMY", "mentat.tag": "it's", "ignore_system_indexes": "on"}
	for name, v := range want {
		st, err := s.Prepare(ctx, "SELECT current_setting($1)")
		if err != nil {
			t.Fatal(err)
		}
		var rows [][]any
		if _, err := st.Query(ctx, []any{name}, &rows); err != nil {
			t.Fatal(err)
		}
		if got := rows[0][0]; got != v {
			t.Errorf("session %s = %v, want %q", name, got, v)
		}
	}
	// SHOW through Exec+Query in the simple protocol too.
	st, err := s.Prepare(ctx, "SHOW work_mem")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil || rows[0][0] != "7MB" {
		t.Errorf("SHOW work_mem = %v, %v", rows, err)
	}
	// Stored in the database too, since Open created it.
	var stored []string
	err = b.withMeta(ctx, "test", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, `SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
			WHERE d.datname = current_database() AND s.setrole = 0`).Scan(&stored)
	})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.ToLower(strings.Join(stored, "|"))
	for _, w := range []string{"work_mem=7mb", "datestyle=sql, dmy", "mentat.tag=it's"} {
		if !strings.Contains(joined, w) {
			t.Errorf("ALTER DATABASE settings %q lack %q", joined, w)
		}
	}
	got, err := b.ReadSettings(ctx, []string{"work_mem", "DateStyle", "mentat.tag", "no_such_setting"})
	if err != nil {
		t.Fatal(err)
	}
	if got["work_mem"] != "7MB" || got["DateStyle"] != "SQL, DMY" || got["mentat.tag"] != "it's" || len(got) != 3 {
		t.Errorf("ReadSettings = %v", got)
	}

	// A second Open of the existing database applies them per session.
	b2, err := New(Name).Open(ctx, drivers.Config{Scale: "test", Settings: map[string]string{"work_mem": "9MB"},
		Options: map[string]string{"dsn": testDSN(t), "database": b.Database()}})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if b2.Created() {
		t.Error("Created() = true for an existing database")
	}
	m, err := b2.(drivers.SettingsReader).ReadSettings(ctx, []string{"work_mem"})
	if err != nil || m["work_mem"] != "9MB" {
		t.Errorf("second Open: work_mem = %v, %v; want 9MB", m, err)
	}
}

func TestBadSettings(t *testing.T) {
	dsn := testDSN(t)
	ctx := testCtx(t)
	cases := []struct {
		settings map[string]string
		want     []string
	}{
		{map[string]string{"no_such_guc": "1"}, []string{`"no_such_guc"`, "unrecognized"}},
		{map[string]string{"shared_buffers": "1GB"}, []string{`"shared_buffers"`, "server configuration"}},
		{map[string]string{"work_mem": "lots"}, []string{"work_mem", "lots"}},
		{map[string]string{"log_connections": "maybe"}, []string{"log_connections"}},
	}
	for _, c := range cases {
		name := testDBName(t)
		_, err := New(Name).Open(ctx, drivers.Config{Scale: "test", Settings: c.settings,
			Options: map[string]string{"dsn": dsn, "database": name}})
		if err == nil {
			t.Errorf("Open with %v succeeded", c.settings)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Open with %v: %v; want it to mention %s", c.settings, err, w)
			}
		}
		// Validation comes before creation: nothing is left behind.
		if exists(t, dsn, name) {
			t.Errorf("database %s was created despite the bad setting", name)
		}
	}
}

func exists(t *testing.T, dsn, name string) bool {
	t.Helper()
	ctx := testCtx(t)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var ok bool
	if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestDropRefusesProtected(t *testing.T) {
	dsn := testDSN(t)
	ctx := testCtx(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{cfg.Database, "postgres", "template1"} {
		b, err := New(Name).Open(ctx, drivers.Config{Scale: "test", Options: map[string]string{"dsn": dsn, "database": name}})
		if err != nil {
			t.Fatalf("Open %s: %v", name, err)
		}
		err = b.(drivers.Dropper).Drop(ctx)
		b.Close()
		if err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("Drop of %s: %v, want a refusal", name, err)
		}
		if !exists(t, dsn, name) {
			t.Fatalf("database %s is gone", name)
		}
	}
	for _, name := range []string{"template0", "Template_x", "POSTGRES"} {
		if (&Backend{database: name, adminDB: "other"}).protected() == "" {
			t.Errorf("%s is not protected", name)
		}
	}
}

func TestCancelKeepsSession(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			pid := backendPID(t, s)
			slow, err := s.Prepare(ctx, "SELECT pg_sleep(30)")
			if err != nil {
				t.Fatal(err)
			}
			qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			start := time.Now()
			_, err = slow.Query(qctx, nil, nil)
			cancel()
			elapsed := time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("slow query: %v; want context.DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), "57014") {
				t.Errorf("error %q does not show the server's cancel (SQLSTATE 57014)", err)
			}
			if elapsed > time.Second {
				t.Errorf("cancel took %v", elapsed)
			}
			if got := backendPID(t, s); got != pid {
				t.Errorf("backend pid %d after cancel, was %d: the connection was replaced", got, pid)
			}
			// The server no longer runs it.
			var rows [][]any
			st, _ := s.Prepare(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'")
			if _, err := st.Query(ctx, nil, &rows); err != nil || rows[0][0] != int64(0) {
				t.Errorf("sleeping queries left: %v, %v", rows, err)
			}
		})
	}
}

func backendPID(t *testing.T, s drivers.Session) int64 {
	t.Helper()
	ctx := testCtx(t)
	st, err := s.Prepare(ctx, "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		t.Fatal(err)
	}
	return rows[0][0].(int64)
}

func TestReconnect(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Exec(ctx, "SET work_mem = '3MB'"); err != nil {
				t.Fatal(err)
			}
			st, err := s.Prepare(ctx, "SELECT current_setting('work_mem'), $1::int + 1")
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
			_, err = st.Query(ctx, []any{int64(1)}, nil)
			if err == nil || !strings.Contains(err.Error(), "reconnects") {
				t.Fatalf("query on a killed connection: %v; want an error saying it reconnects", err)
			}
			var rows [][]any
			if _, err := st.Query(ctx, []any{int64(41)}, &rows); err != nil {
				t.Fatalf("query after reconnect: %v", err)
			}
			if rows[0][0] != "3MB" || rows[0][1] != int64(42) {
				t.Errorf("after reconnect: %v, want [3MB 42]", rows[0])
			}
			if backendPID(t, s) == pid {
				t.Error("same backend pid after reconnect")
			}
		})
	}
}

func TestConvert(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			b := openTest(t, v, nil)
			ctx := testCtx(t)
			s, err := b.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			st, err := s.Prepare(ctx, `SELECT 2::int2, 3::int4, sum(x), avg(x), 1.5::float4, 'é'::varchar,
				'2024-02-03 04:05:06+00'::timestamptz, '00000000-0000-0000-0000-00000000000a'::uuid,
				'{"a": 1}'::jsonb, '{"b":2}'::json, '\x0102'::bytea, NULL::text, true, 12.50::numeric, '1 day'::interval
				FROM generate_series(1, $1::int) x`)
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			if _, err := st.Query(ctx, []any{int64(4)}, &rows); err != nil {
				t.Fatal(err)
			}
			want := []any{int64(2), int64(3), int64(10), 2.5, 1.5, "é",
				time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC), "00000000-0000-0000-0000-00000000000a",
				`{"a": 1}`, `{"b":2}`, []byte{1, 2}, nil, true, 12.5, "1 day"}
			got := rows[0]
			for i := range want {
				g := got[i]
				if tm, ok := g.(time.Time); ok {
					g = tm.UTC()
				}
				if s, ok := g.(string); ok && strings.HasPrefix(s, "1 day") {
					g = "1 day" // the binary interval reads back as "1 day 00:00:00"
				}
				if fmt.Sprintf("%T %v", g, g) != fmt.Sprintf("%T %v", want[i], want[i]) {
					t.Errorf("column %d: got %T %v, want %T %v", i+1, g, g, want[i], want[i])
				}
			}
		})
	}
}

func TestCapabilities(t *testing.T) {
	b := openTest(t, variants[0], nil)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Exec(ctx, "CREATE TABLE t (a int, v text); CREATE INDEX t_av ON t (a, v); INSERT INTO t SELECT x % 10, x::text FROM generate_series(1, 1000) x; ANALYZE t"); err != nil {
		t.Fatal(err)
	}
	plan, err := b.Explain(ctx, "SELECT * FROM t WHERE a = $1 AND v = $2", []any{int64(3), "13"})
	if err != nil || !strings.HasPrefix(strings.TrimSpace(plan), "[") || !strings.Contains(plan, "t_av") {
		t.Errorf("Explain = %s, %v; want a JSON plan using t_av", plan, err)
	}
	size, err := b.Size(ctx)
	if err != nil || size < 1<<20 {
		t.Errorf("Size = %d, %v", size, err)
	}
	cache, err := b.CacheSize(ctx)
	if err != nil || cache < 128<<10 {
		t.Errorf("CacheSize = %d, %v", cache, err)
	}
	v, err := b.Version(ctx)
	if err != nil || v == "" || v[0] < '1' || v[0] > '9' {
		t.Errorf("Version = %q, %v", v, err)
	}
	t.Logf("version %s, size %d, shared_buffers %d", v, size, cache)
}

func TestLoaderTypes(t *testing.T) {
	b := openTest(t, variants[0], nil)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Exec(ctx, `CREATE SCHEMA x; CREATE TABLE x."Odd Name" (i2 smallint, n numeric, ts timestamptz, f4 real, c char(3), i8 bigint)`); err != nil {
		t.Fatal(err)
	}
	l, err := b.NewLoader(ctx, []drivers.TableSpec{{Name: "x.Odd Name", Columns: []string{"i2", "n", "ts", "f4", "c", "i8"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(0, []any{int64(7), "12.25", "2024-01-02 03:04:05+00", 0.5, "ab", nil}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(0, []any{int64(1), 1.5, nil, int64(2), "xyz", int64(9)}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(0, []any{int64(70000), "1", nil, 0.0, "a", nil}); err == nil || !strings.Contains(err.Error(), "i2") {
		t.Errorf("smallint overflow: %v", err)
	}
	if err := l.Append(0, []any{int64(1)}); err == nil {
		t.Error("short row accepted")
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatalf("empty Flush: %v", err)
	}
	st, err := s.Prepare(ctx, `SELECT i2, n, ts, f4, c, i8 FROM x."Odd Name" ORDER BY i2`)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if len(rows) != 2 || fmt.Sprint(rows[0]) != "[1 1.5 <nil> 2 xyz 9]" ||
		rows[1][0] != int64(7) || rows[1][1] != 12.25 || !rows[1][2].(time.Time).Equal(ts) ||
		rows[1][3] != 0.5 || rows[1][4] != "ab " || rows[1][5] != nil {
		t.Errorf("loaded rows %v", rows)
	}

	// A server-side error fails the Flush and the loader can go on.
	if err := s.Exec(ctx, `ALTER TABLE x."Odd Name" ADD CHECK (i8 <> 13)`); err != nil {
		t.Fatal(err)
	}
	l.Append(0, []any{int64(2), "1", nil, 0.0, "a", int64(13)})
	if err := l.Flush(ctx); err == nil || !strings.Contains(err.Error(), "check constraint") {
		t.Errorf("Flush of a violating row: %v", err)
	}
	l.Append(0, []any{int64(3), "1", nil, 0.0, "a", int64(14)})
	if err := l.Flush(ctx); err != nil {
		t.Errorf("Flush after a failed one: %v", err)
	}
	rows = nil
	if _, err := st.Query(ctx, nil, &rows); err != nil || len(rows) != 3 {
		t.Errorf("rows after the failed flush: %v, %v", rows, err)
	}
}

// TestLoaderLarge crosses chunk boundaries with interleaved tables and a
// Close without Flush that must discard.
func TestLoaderLarge(t *testing.T) {
	testDSN(t) // skip once, not per subtest
	for _, v := range []variant{variants[0], variants[2], variants[4]} {
		t.Run(v.io, func(t *testing.T) { testLoaderLarge(t, v) })
	}
}

func testLoaderLarge(t *testing.T, v variant) {
	b := openTest(t, v, nil)
	ctx := testCtx(t)
	s, err := b.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Exec(ctx, "CREATE TABLE a (e bigint, v text); CREATE TABLE b (x float8)"); err != nil {
		t.Fatal(err)
	}
	specs := []drivers.TableSpec{{Name: "a", Columns: []string{"e", "v"}}, {Name: "b", Columns: []string{"x"}}}
	l, err := b.NewLoader(ctx, specs)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200000
	row := make([]any, 2)
	one := make([]any, 1)
	for i := 0; i < n; i++ {
		row[0], row[1] = int64(i), "value-"+fmt.Sprint(i)
		if err := l.Append(0, row); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			one[0] = float64(i)
			if err := l.Append(1, one); err != nil {
				t.Fatal(err)
			}
		}
		if i == n/2 {
			if err := l.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		l.Append(0, row) // discarded by Close
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(0, row); err == nil {
		t.Error("Append after Close succeeded")
	}
	st, err := s.Prepare(ctx, "SELECT (SELECT count(*) FROM a), (SELECT sum(e) FROM a), (SELECT count(*) FROM b)")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	if _, err := st.Query(ctx, nil, &rows); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]any{int64(n), int64(n) * (n - 1) / 2, int64((n + 2) / 3)})
	if got := fmt.Sprint(rows[0]); got != want {
		t.Errorf("counts %s, want %s", got, want)
	}
}

func TestQuoting(t *testing.T) {
	if got := quoteLiteral(`a'b\c`); got != `E'a''b\\c'` {
		t.Errorf("quoteLiteral = %s", got)
	}
	if got := quoteSettingName("My.Setting"); got != `"my"."setting"` {
		t.Errorf("quoteSettingName = %s", got)
	}
	if len(copyHeader) != 19 {
		t.Errorf("COPY header is %d bytes, want 19", len(copyHeader))
	}
	for sql, want := range map[string]bool{"SET work_mem = 1": true, "set local x = 1": false, "SET TRANSACTION READ ONLY": false, "SELECT 1": false} {
		if isSessionSet(sql) != want {
			t.Errorf("isSessionSet(%q) = %v", sql, !want)
		}
	}
}
