// Package postgres is the mentat-spec driver for PostgreSQL, built on pgx.
//
// Options (the spec's backend block):
//
//	dsn       required; a server DSN. Its database is only used to create,
//	          validate and drop the benchmark database. Passwords never
//	          appear in errors.
//	database  the database to use (default "mentat_<scale>"), created if
//	          missing; with Config.Init it is created as
//	          <database>__mentat_creating, initialised, then renamed.
//	protocol  "extended" (default: server-side prepared statements) or
//	          "simple" (client-side interpolation, one round trip per call).
//	io        how a session waits for the server's reply. "raw" (the
//	          default on Linux) gives each session a blocking socket read
//	          and written with raw system calls: one write and one read per
//	          query, the goroutine keeping its thread and P while the kernel
//	          waits, as pgbench's threads do; while such sessions are open
//	          GOMAXPROCS is raised to their number plus 2 (restored when the
//	          last closes; in a worker process, to their number: see
//	          drivers.SetClientProcess); each session yields to the
//	          scheduler every 4 ms, before Go's sysmon would signal it, and
//	          socket timeouts of 4 ms let a stop-the-world GC, a deadline or
//	          a Close through. Loaders and the backend's own connection use
//	          "auto" then. "auto" (the default elsewhere) waits in the
//	          kernel (ppoll, then read) while the backend has no more open
//	          sessions than GOMAXPROCS and through Go's network poller
//	          beyond; "poller" always uses the poller; "blocking" makes
//	          plain blocking reads and writes that hand the P over.
//	          BENCHMARKS.md compares them against pgbench.
//
// Counted queries (the measured path: Stmt.Query with no destination) are
// framed on the session's pgx connection by drivers/pgwire (Bind, Execute
// and Sync, or one Query message in simple mode, encoded and decoded with
// pgproto3), which also holds the io transports; everything else
// (connecting, authentication, TLS, prepare, Exec, collected rows, COPY)
// is pgx's own path.
//
// The package registers the driver as "postgres" (Name); New gives it
// under another name, for a database that speaks PostgreSQL's protocol
// and SQL.
//
// Settings (GUCs) are validated against the server at Open, before
// anything is created, and a bad name or value fails Open with an error
// naming it. They are sent in the startup packet of every connection the
// backend opens, so each session has them without an extra round trip.
// When Open created the database they are also stored with ALTER DATABASE
// ... SET, so that other clients (psql, pgbench) see them too; settings
// only valid at connection start (log_connections, ...) cannot be stored
// and go in the startup packet only, and settings only the server
// configuration can change (shared_buffers, ...) are rejected. A
// list-valued setting (search_path = 'a, b') is sent as given at
// connection start but stored by ALTER DATABASE as one quoted element.
//
// A context deadline or cancel sends a cancel request to the server: the
// statement stops and the session stays usable. If the server does not
// answer in time, or the connection dies otherwise, the call's error says
// so and the session's next call reconnects, preparing its statements and
// repeating its SET statements again.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/pgwire"
)

// Name is the name the driver is registered under in drivers.Default.
const Name = "postgres"

func init() { drivers.Default.MustRegister(Name, New(Name)) }

// New returns the PostgreSQL driver for registration under name, which
// its errors begin with: a database that speaks PostgreSQL's protocol
// and SQL registers it under a name of its own.
func New(name string) drivers.Driver { return pgDriver{name: name} }

type pgDriver struct{ name string }

var (
	_ drivers.Driver = pgDriver{}
)

// StoreCost implements drivers.StoreEstimator: the mentat workload at
// scale l (99,117,612 datoms, quiet, docs/runs/2026-12-02-xs-to-l): 26.4
// GiB; 111 + 718 + 2 + 2.6 s of load, after_load, analyze and vacuum (5.6
// us a datom at s).
func (pgDriver) StoreCost() drivers.StoreCost {
	return drivers.StoreCost{BytesPerDatom: 286, SecondsPerDatom: 8.4e-6}
}

func (pgDriver) OptionNames() []string {
	return []string{"database", "dsn", "io", "protocol", "server_restart"}
}

// Dialect is "postgres".
func (pgDriver) Dialect() string { return "postgres" }

// Protocol values of the "protocol" option.
const (
	ProtocolExtended = "extended"
	ProtocolSimple   = "simple"
)

// IO values of the "io" option.
const (
	IOPoller   = "poller"   // Go's network poller
	IOBlocking = "blocking" // blocking system calls, see pgwire.DialBlocking
	IOAuto     = "auto"     // kernel waits up to GOMAXPROCS sessions, see pgwire.DialAuto
	IORaw      = "raw"      // raw system calls that keep the P, see pgwire.DialRaw
)

// defaultIO is the io option's default: raw where it has its own
// transport (Linux), auto elsewhere.
func defaultIO() string {
	if pgwire.RawAvailable {
		return IORaw
	}
	return IOAuto
}

// cancelDeadlineDelay bounds how long a cancelled call waits for the server
// to acknowledge the cancel request before the socket is closed instead
// (a variable for the tests).
var cancelDeadlineDelay = 5 * time.Second

// Backend is an open PostgreSQL database.
type Backend struct {
	name          string // the driver's name, which errors begin with
	database      string // the benchmark database
	serverRestart string // the server_restart option
	adminDB       string // the DSN's own database
	protocol      string
	created       bool
	secrets       []string // strings to redact from errors

	adminCfg *pgx.ConnConfig // connects to adminDB
	connCfg  *pgx.ConnConfig // connects to database with the settings
	sessCfg  *pgx.ConnConfig // connCfg for sessions (io = raw differs)
	raw      bool            // sessions use pgwire.DialRaw

	mu   sync.Mutex // guards meta
	meta *pgx.Conn  // for Size, Explain, settings and version

	cancelDelay time.Duration    // cancelDeadlineDelay when Open ran
	gone        pgwire.QueryGone // confirms cut queries are gone

	// extensions are created in the database by Open (extensions.go).
	extensions []drivers.Extension

	sessions atomic.Int32 // open sessions, for io=auto
	fewLimit int32        // io=auto waits in the kernel up to this many

	// waits is the wait-event sampler the evidence probes under way
	// share (evidence.go): a capacity probe's stretch inside its point
	// reads the one sampler, never starts a second.
	waitsMu sync.Mutex
	waits   *waitSampler
}

var (
	_ drivers.Backend        = (*Backend)(nil)
	_ drivers.BulkLoader     = (*Backend)(nil)
	_ drivers.Sizer          = (*Backend)(nil)
	_ drivers.Explainer      = (*Backend)(nil)
	_ drivers.Dropper        = (*Backend)(nil)
	_ drivers.SettingsReader = (*Backend)(nil)
	_ drivers.Versioner      = (*Backend)(nil)
	_ drivers.CacheSizer     = (*Backend)(nil)
)

type options struct {
	name string // the driver's

	dsn, database, protocol, io string
	// serverRestart: "auto" lets cold_warm restart the DSN's server
	// (coldstart.go), "off" never does.
	serverRestart string
}

func parseOptions(name string, cfg drivers.Config) (options, error) {
	o := options{name: name, protocol: ProtocolExtended, io: defaultIO(), serverRestart: "auto"}
	var unknown []string
	for k, v := range cfg.Options {
		switch k {
		case "dsn":
			o.dsn = v
		case "database":
			o.database = v
		case "protocol":
			o.protocol = v
		case "io":
			o.io = v
		case "server_restart":
			o.serverRestart = v
		default:
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return o, fmt.Errorf("%s: unknown option(s) %s (known: dsn, database, protocol, io, server_restart)", o.name, strings.Join(unknown, ", "))
	}
	if o.dsn == "" {
		return o, errors.New(`postgres: option "dsn" is required`)
	}
	if o.protocol != ProtocolExtended && o.protocol != ProtocolSimple {
		return o, fmt.Errorf("%s: option protocol = %q: want %q or %q", o.name, o.protocol, ProtocolExtended, ProtocolSimple)
	}
	if o.io != IOPoller && o.io != IOBlocking && o.io != IOAuto && o.io != IORaw {
		return o, fmt.Errorf("%s: option io = %q: want %q, %q, %q or %q", o.name, o.io, IORaw, IOAuto, IOPoller, IOBlocking)
	}
	if o.serverRestart != "auto" && o.serverRestart != "off" {
		return o, fmt.Errorf("%s: option server_restart = %q: want \"auto\" or \"off\"", o.name, o.serverRestart)
	}
	if o.database == "" {
		o.database = "mentat_" + sanitizeName(cfg.Scale)
	}
	if len(o.database) > 63 {
		return o, fmt.Errorf("%s: database name %q is longer than 63 bytes", o.name, o.database)
	}
	return o, nil
}

// sanitizeName keeps a scale name usable as an unquoted database name.
func sanitizeName(s string) string {
	if s == "" {
		return "default"
	}
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Open connects to the DSN's database, validates the settings, creates the
// benchmark database if missing and opens a connection to it.
func (d pgDriver) Open(ctx context.Context, cfg drivers.Config) (drivers.Backend, error) {
	o, err := parseOptions(d.name, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkExtensionItems(d.name, cfg.Extensions); err != nil {
		return nil, err
	}
	secrets := dsnSecrets(o.dsn)
	adminCfg, err := pgx.ParseConfig(o.dsn)
	if err != nil {
		return nil, dsnParseError(d.name, o.dsn, err, secrets)
	}
	if adminCfg.Password != "" {
		secrets = append(secrets, adminCfg.Password)
	}
	if adminCfg.ConnectTimeout == 0 {
		adminCfg.ConnectTimeout = 10 * time.Second
	}
	// A cancelled context sends a cancel request to the server, so the
	// running statement stops and the connection stays usable; the socket
	// is closed only if the server does not answer in time.
	adminCfg.BuildContextWatcherHandler = pgwire.CancelHandler(cancelDeadlineDelay, nil)
	b := &Backend{
		name:          d.name,
		database:      o.database,
		adminDB:       adminCfg.Database,
		protocol:      o.protocol,
		secrets:       secrets,
		adminCfg:      adminCfg,
		serverRestart: o.serverRestart,
		cancelDelay:   cancelDeadlineDelay,
	}
	b.gone.Config = adminCfg

	b.connCfg = adminCfg.Copy()
	b.connCfg.Database = o.database
	// A cut query must be gone on the server before its call returns.
	b.connCfg.BuildContextWatcherHandler = pgwire.CancelHandler(b.cancelDelay, b.gone.Wait)
	switch o.io {
	case IOBlocking:
		b.connCfg.DialFunc = pgwire.DialBlocking
	case IOAuto, IORaw:
		b.fewLimit = int32(runtime.GOMAXPROCS(0))
		b.connCfg.DialFunc = pgwire.DialAuto(func() bool { return b.sessions.Load() <= b.fewLimit })
	}
	if o.protocol == ProtocolSimple {
		b.connCfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	rp := make(map[string]string, len(adminCfg.RuntimeParams)+len(cfg.Settings)+1)
	for k, v := range adminCfg.RuntimeParams {
		rp[k] = v
	}
	if _, ok := rp["application_name"]; !ok {
		rp["application_name"] = "mentat-spec"
	}
	for k, v := range cfg.Settings {
		rp[k] = v
	}
	b.connCfg.RuntimeParams = rp
	b.connCfg.AfterConnect = sessionSetup(d.name, cfg.SessionSetup)
	b.extensions = cfg.Extensions
	b.sessCfg = b.connCfg
	if o.io == IORaw && pgwire.RawAvailable {
		b.sessCfg = b.connCfg.Copy()
		b.sessCfg.DialFunc = pgwire.DialRaw
		b.raw = true
	}

	admin, err := pgx.ConnectConfig(ctx, adminCfg)
	if err != nil {
		return nil, b.redact(fmt.Errorf("%s: connect to database %q: %w", b.name, b.adminDB, err))
	}
	defer closeQuietly(admin)
	storable, err := b.validateSettings(ctx, admin, cfg.Settings)
	if err != nil {
		return nil, b.redact(err)
	}
	if err := b.create(ctx, admin, cfg.Settings, storable, cfg.Init); err != nil {
		return nil, b.redact(b.undoCreate(admin, err))
	}
	// A database Open did not create may not be the engine's: its
	// extensions wait for ApplySettings, once the engine knows.
	if b.created {
		if err := b.createExtensions(ctx, b.extensions); err != nil {
			return nil, b.redact(b.undoCreate(admin, err))
		}
	}
	b.meta, err = b.connect(ctx)
	if err != nil {
		err = fmt.Errorf("%s: connect to database %q: %w", b.name, b.database, err)
		return nil, b.redact(b.undoCreate(admin, err))
	}
	return b, nil
}

// undoCreate drops the database Open created before failing, so a failed
// Open leaves nothing behind.
func (b *Backend) undoCreate(admin *pgx.Conn, err error) error {
	if !b.created {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, derr := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{b.database}.Sanitize()+" WITH (FORCE)"); derr != nil {
		return fmt.Errorf("%w (and dropping the new database %q failed: %w)", err, b.database, derr)
	}
	return err
}

// create makes the database if it is missing and stores the settings in it.
func (b *Backend) create(ctx context.Context, admin *pgx.Conn, settings map[string]string, storable, init []string) error {
	var exists bool
	err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", b.database).Scan(&exists)
	if err != nil {
		return fmt.Errorf("%s: look up database %q: %w", b.name, b.database, err)
	}
	if exists {
		return nil
	}
	ident := pgx.Identifier{b.database}.Sanitize()
	if len(init) > 0 {
		made, err := b.createWith(ctx, admin, init)
		if err != nil || !made {
			return err
		}
	} else if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" {
			return nil // created concurrently by another process
		}
		return fmt.Errorf("%s: create database %q: %w", b.name, b.database, err)
	}
	b.created = true
	for _, name := range storable {
		q := "ALTER DATABASE " + ident + " SET " + quoteSettingName(name) + " = " + quoteLiteral(settings[name])
		if _, err := admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: store setting %s = %q in database %q: %w", b.name, name, settings[name], b.database, err)
		}
	}
	return nil
}

// creatingSuffix names the database a creation is made under before init
// has run in it; only this driver makes such names.
const creatingSuffix = "__mentat_creating"

// createWith creates the database under a temporary name, runs init in it
// and renames it into place, so the database appears with init done: a
// process killed right after creating it leaves one that says who made
// it. A temporary database left by a killed creation is dropped first. It
// reports false when another process created the database meanwhile.
func (b *Backend) createWith(ctx context.Context, admin *pgx.Conn, init []string) (bool, error) {
	tmp := b.database
	if len(tmp)+len(creatingSuffix) > 63 {
		tmp = tmp[:63-len(creatingSuffix)]
	}
	tmp += creatingSuffix
	tmpIdent := pgx.Identifier{tmp}.Sanitize()
	if err := b.dropCreating(ctx, admin, tmp); err != nil {
		return false, err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+tmpIdent); err != nil {
		return false, fmt.Errorf("%s: create database %q: %w", b.name, tmp, err)
	}
	fail := func(err error) (bool, error) {
		if _, derr := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+tmpIdent+" WITH (FORCE)"); derr != nil {
			err = fmt.Errorf("%w (and dropping %q failed: %w)", err, tmp, derr)
		}
		return false, err
	}
	cfg := b.adminCfg.Copy()
	cfg.Database = tmp
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fail(fmt.Errorf("%s: connect to database %q: %w", b.name, tmp, err))
	}
	for _, q := range init {
		if _, err := conn.Exec(ctx, q); err != nil {
			closeQuietly(conn)
			return fail(fmt.Errorf("%s: create database %q: %q: %w", b.name, b.database, q, err))
		}
	}
	closeQuietly(conn)
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+tmpIdent+" RENAME TO "+pgx.Identifier{b.database}.Sanitize()); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" {
			_, err := fail(nil) // created concurrently by another process
			return false, err
		}
		return fail(fmt.Errorf("%s: create database %q: rename %q: %w", b.name, b.database, tmp, err))
	}
	return true, nil
}

// dropCreating drops a database named name (a temporary name of
// createWith) left by a killed creation. It holds at most the tables init
// makes; one holding more is not taken for one.
func (b *Backend) dropCreating(ctx context.Context, admin *pgx.Conn, name string) error {
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil || !exists {
		return err
	}
	cfg := b.adminCfg.Copy()
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("%s: connect to database %q: %w", b.name, name, err)
	}
	var tables int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`).Scan(&tables)
	closeQuietly(conn)
	if err != nil {
		return fmt.Errorf("%s: database %q: %w", b.name, name, err)
	}
	if tables > 1 {
		return fmt.Errorf("%s: database %q holds %d tables: not one this driver left while creating %q; drop or rename it", b.name, name, tables, b.database)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("%s: drop the half-created database %q: %w", b.name, name, err)
	}
	return nil
}

// validateSettings checks names, contexts and values of the settings so a
// bad one fails Open with its name, before anything is created. It returns
// the names that ALTER DATABASE accepts: not those only valid at
// connection start, which the startup packet carries alone.
func (b *Backend) validateSettings(ctx context.Context, conn *pgx.Conn, settings map[string]string) ([]string, error) {
	var storable []string
	atStart := map[string]string{}
	for _, name := range sortedKeys(settings) {
		value := settings[name]
		var gucContext string
		err := conn.QueryRow(ctx, "SELECT context FROM pg_settings WHERE lower(name) = lower($1)", name).Scan(&gucContext)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if !strings.Contains(name, ".") {
				return nil, fmt.Errorf("%s: setting %q: unrecognized configuration parameter", b.name, name)
			}
			gucContext = "user" // a custom (extension) setting
		case err != nil:
			return nil, fmt.Errorf("%s: look up setting %q: %w", b.name, name, err)
		}
		switch gucContext {
		case "user", "superuser":
			// set_config checks the value exactly as SET would.
			if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false)", name, value); err != nil {
				return nil, fmt.Errorf("%s: setting %s = %q: %w", b.name, name, value, err)
			}
			storable = append(storable, name)
		case "backend", "superuser-backend":
			atStart[name] = value
		default:
			return nil, fmt.Errorf("%s: setting %q can only be changed in the server configuration (context %s), not per database or session", b.name, name, gucContext)
		}
	}
	if len(atStart) > 0 {
		// Only a new connection can check these.
		cfg := b.adminCfg.Copy()
		for k, v := range atStart {
			cfg.RuntimeParams[k] = v
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: settings %v: %w", b.name, sortedKeys(atStart), err)
		}
		closeQuietly(c)
	}
	return storable, nil
}

// connect opens a connection to the benchmark database with the settings.
func (b *Backend) connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, b.connCfg)
}

// connectSession opens a session's connection.
func (b *Backend) connectSession(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, b.sessCfg)
}

// Dialect reports "postgres".
func (b *Backend) Dialect() string { return "postgres" }

// Placeholder returns "$i".
func (b *Backend) Placeholder(i int) string { return "$" + strconv.Itoa(i) }

// Created reports whether Open created the database.
func (b *Backend) Created() bool { return b.created }

// Database is the name of the benchmark database.
func (b *Backend) Database() string { return b.database }

// Close closes the backend's own connection; it drops nothing.
func (b *Backend) Close() error {
	b.stopSampler()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.meta != nil {
		closeQuietly(b.meta)
		b.meta = nil
	}
	b.gone.Close()
	return nil
}

// withMeta runs f on the backend's own connection, reconnecting if needed.
func (b *Backend) withMeta(ctx context.Context, what string, f func(*pgx.Conn) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.meta == nil || b.meta.IsClosed() {
		c, err := b.connect(ctx)
		if err != nil {
			return b.redact(fmt.Errorf("%s: %s: connect to database %q: %w", b.name, what, b.database, err))
		}
		b.meta = c
	}
	if err := f(b.meta); err != nil {
		return b.redact(fmt.Errorf("%s: %s: %w", b.name, what, withCtx(ctx, err)))
	}
	return nil
}

// Size is pg_database_size of the benchmark database.
func (b *Backend) Size(ctx context.Context) (int64, error) {
	var n int64
	err := b.withMeta(ctx, "size", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
	})
	return n, err
}

// CacheSetting is the setting CacheSize reads.
func (b *Backend) CacheSetting() string { return "shared_buffers" }

// CacheSize is shared_buffers in bytes.
func (b *Backend) CacheSize(ctx context.Context) (int64, error) {
	var n int64
	err := b.withMeta(ctx, "shared_buffers", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_size_bytes(current_setting('shared_buffers'))").Scan(&n)
	})
	return n, err
}

// Explain returns EXPLAIN (FORMAT JSON) of sql run with args.
func (b *Backend) Explain(ctx context.Context, sql string, args []any) (string, error) {
	var plan string
	err := b.withMeta(ctx, "explain", func(c *pgx.Conn) error {
		qargs := args
		if b.protocol == ProtocolExtended {
			// Typed parameters like a prepared statement, without caching
			// one statement per explained query.
			qargs = append([]any{pgx.QueryExecModeDescribeExec}, args...)
		}
		return c.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, qargs...).Scan(&plan)
	})
	return plan, err
}

// ReadSettings reads back the values in force for new sessions with
// current_setting, which shows units as a spec writes them (64MB, not
// 65536 kB pages). Names the server does not know are left out.
func (b *Backend) ReadSettings(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	err := b.withMeta(ctx, "read settings", func(c *pgx.Conn) error {
		for _, name := range names {
			var v *string
			err := c.QueryRow(ctx, "SELECT current_setting($1, true)", name).Scan(&v)
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if v != nil {
				out[name] = *v
			}
		}
		return nil
	})
	return out, err
}

// Version is the server_version the server reported at connection start.
func (b *Backend) Version(ctx context.Context) (string, error) {
	var v string
	err := b.withMeta(ctx, "version", func(c *pgx.Conn) error {
		if v = c.PgConn().ParameterStatus("server_version"); v != "" {
			return nil
		}
		return c.QueryRow(ctx, "SHOW server_version").Scan(&v)
	})
	return v, err
}

// protected reports why a database must never be dropped, or "".
func (b *Backend) protected() string {
	switch {
	case b.database == b.adminDB:
		return "it is the DSN's own database"
	case strings.EqualFold(b.database, "postgres"):
		return "it is the default database"
	case strings.HasPrefix(strings.ToLower(b.database), "template"):
		return "it is a template database"
	}
	return ""
}

// Drop closes the backend's connection and drops the benchmark database
// from a connection to the DSN's database, ending other sessions on it.
func (b *Backend) Drop(ctx context.Context) error {
	if why := b.protected(); why != "" {
		return fmt.Errorf("%s: refusing to drop database %q: %s", b.name, b.database, why)
	}
	if err := b.Close(); err != nil {
		return err
	}
	admin, err := pgx.ConnectConfig(ctx, b.adminCfg)
	if err != nil {
		return b.redact(fmt.Errorf("%s: drop: connect to database %q: %w", b.name, b.adminDB, err))
	}
	defer closeQuietly(admin)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{b.database}.Sanitize()+" WITH (FORCE)"); err != nil {
		return b.redact(fmt.Errorf("%s: drop database %q: %w", b.name, b.database, withCtx(ctx, err)))
	}
	return nil
}

func (b *Backend) redact(err error) error { return redact(err, b.secrets) }

// withCtx makes a context's error visible to errors.Is when it caused err.
func withCtx(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

func closeQuietly(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx) // the connection is discarded either way
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quoteSettingName quotes each dot-separated part of a setting name.
func quoteSettingName(name string) string {
	return pgx.Identifier(strings.Split(strings.ToLower(name), ".")).Sanitize()
}

// quoteLiteral quotes s as an SQL string literal, whatever
// standard_conforming_strings is.
func quoteLiteral(s string) string {
	if strings.Contains(s, `\`) {
		return `E'` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `''`) + `'`
	}
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}
