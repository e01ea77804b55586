// Package duckdb is the DuckDB driver, built on the C API that
// duckdb-go/v2 exposes in its mapping package (DuckDB 1.5.6).
//
// It does not go through database/sql nor duckdb-go's driver.Rows: every
// session owns one raw DuckDB connection and its prepared statements.
// Measured on this machine, counting the rows of a one-million-row result
// through driver.Rows cost 443 ms against 137 ms when only chunk sizes are
// read, because driver.Rows boxes every value of every row. The loader
// fills DuckDB data chunks in place and hands them to a DuckDB appender;
// DuckDB's compression, not the client, then sets the load rate.
//
// The database is opened through duckdb-go's instance cache, so a
// database/sql handle on the same file in the same process shares it.
package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	ddb "github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/internal/tracker"
)

// Name is the name the driver registers under in drivers.Default.
const Name = "duckdb"

func init() { drivers.Default.MustRegister(Name, New()) }

// New returns the DuckDB driver, for tests that register into their own
// Registry.
func New() drivers.Driver { return duckDriver{} }

type duckDriver struct{}

// OptionNames lists the options Open accepts.
func (duckDriver) OptionNames() []string { return []string{"path", "access_mode"} }

// WritingConnections implements drivers.WriteLimiter: DuckDB runs one
// writing transaction at a time, so the writes of a stream of operations
// go through one writing session rather than fail or wait on its lock.
func (duckDriver) WritingConnections() int { return 1 }

// StoreCost implements drivers.StoreEstimator: the mentat workload at
// scale l (99,117,612 datoms, quiet, docs/runs/2026-12-02-xs-to-l): 6.6
// GiB; 50 s + 207 s of load and after_load (2.3 us a datom at s).
func (duckDriver) StoreCost() drivers.StoreCost {
	return drivers.StoreCost{BytesPerDatom: 72, SecondsPerDatom: 2.6e-6}
}

// StorePath implements drivers.StoreLocator: the file Open would use.
func (duckDriver) StorePath(cfg drivers.Config) (string, error) {
	if cfg.Backend == "" {
		return dbPath(cfg, Name)
	}
	return dbPath(cfg, cfg.Backend)
}

// Dialect is "duckdb".
func (duckDriver) Dialect() string { return "duckdb" }

type setting struct{ name, value string }

// Open opens (creating if missing) the database file for cfg and applies
// the settings once on the backend's own connection, so a bad setting
// fails here.
func (duckDriver) Open(ctx context.Context, cfg drivers.Config) (drivers.Backend, error) {
	name := cfg.Backend
	if name == "" {
		name = Name
	}
	path, err := dbPath(cfg, name)
	if err != nil {
		return nil, fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	settings, err := orderSettings(cfg.Settings)
	if err != nil {
		return nil, fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	mode := cfg.Options["access_mode"]
	switch mode {
	case "", "automatic", "read_write", "read_only":
	default:
		return nil, fmt.Errorf("duckdb backend %q: access_mode %q: automatic, read_write or read_only", name, mode)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("duckdb backend %q: open: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("duckdb backend %q: create data directory: %w", name, err)
	}
	created := false
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	if created && mode == "read_only" {
		return nil, fmt.Errorf("duckdb backend %q: %s does not exist, and access_mode is read_only", name, path)
	}
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return nil, fmt.Errorf("duckdb backend %q: %w", name, err)
	}
	b := &backend{name: name, path: path, created: created, settings: settings, mode: mode,
		extensions: cfg.Extensions, allowUnsigned: cfg.AllowUnsignedExtensions, setup: cfg.SessionSetup}
	if created && len(cfg.Init) > 0 {
		if err := b.createWith(ctx, cfg.Init); err != nil {
			return nil, err
		}
	}
	if err := b.openDB(); err != nil {
		if created {
			removeFiles(path)
		}
		return nil, err
	}
	admin, err := b.connect(ctx)
	if err != nil {
		mapping.Close(&b.db)
		if created {
			removeFiles(path)
		}
		return nil, err
	}
	b.admin = admin
	return b, nil
}

// createWith makes the database file under a temporary name, runs init
// on it, closes it (DuckDB checkpoints its WAL into the file) and links it
// into place: the file appears whole, never empty.
func (b *backend) createWith(ctx context.Context, init []string) error {
	for _, old := range append(drivers.LeftoverCreating(b.path), drivers.CreatingName(b.path)) {
		removeFiles(old) // left by a killed creation
	}
	tmp := &backend{name: b.name, path: drivers.CreatingName(b.path), created: true, settings: b.settings, mode: b.mode, allowUnsigned: b.allowUnsigned}
	if err := tmp.openDB(); err != nil {
		removeFiles(tmp.path)
		return err
	}
	c, err := tmp.connect(ctx)
	if err == nil {
		for _, q := range init {
			if err = c.exec(ctx, q); err != nil {
				err = b.wrap("create", q, err)
				break
			}
		}
		c.disconnect()
	}
	mapping.Close(&tmp.db)
	defer removeFiles(tmp.path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(tmp.path + ".wal"); err == nil {
		return fmt.Errorf("duckdb backend %q: create %s: the new file kept its WAL", b.name, b.path)
	}
	if err := drivers.LinkNew(tmp.path, b.path); err != nil {
		return fmt.Errorf("duckdb backend %q: create %s: %w", b.name, b.path, err)
	}
	return nil
}

// dbPath resolves the database file: the "path" option (relative paths are
// taken inside DataDir, where file databases live) or
// <DataDir>/<Backend>-<Scale>.duckdb.
func dbPath(cfg drivers.Config, name string) (string, error) {
	return drivers.StoreFile(cfg, name, ".duckdb", duckDriver{}.OptionNames())
}

// orderSettings validates and sorts the settings so every connection
// applies them in the same order. Names and values are quoted when
// spliced into SET, so any text is safe; DuckDB casts the quoted value to
// the setting's type ('4' to 4, 'false' to false).
func orderSettings(in map[string]string) ([]setting, error) {
	out := make([]setting, 0, len(in))
	for k, v := range in {
		k = strings.TrimSpace(k)
		if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("setting %q = %q: name must be non-empty text", k, v)
		}
		out = append(out, setting{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func (s setting) sql() string {
	return "SET " + quoteIdent(s.name) + " = " + quoteString(s.value)
}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// closer is an open session or loader, closed by Backend.Close and Drop.
type closer interface {
	Close() error
	// interrupt stops the call in flight, if any, so Close does not wait
	// for a long query.
	interrupt()
}

type backend struct {
	name     string // the spec's backend name, for error context
	path     string
	created  bool
	settings []setting
	mode     string // access_mode; read_only lets several processes read the file
	// extensions are loaded on every connection, then setup runs on it
	// (extensions.go); allowUnsigned lets the database load unsigned files.
	extensions    []drivers.Extension
	allowUnsigned bool
	setup         []string

	db mapping.Database

	// adminMu serialises use of admin, the connection behind Explain,
	// ReadSettings, CacheSize and Version. admin is set once by Open and
	// only disconnected by Close, so Close may interrupt it unlocked.
	adminMu sync.Mutex
	admin   *dconn

	open tracker.Set[closer]
}

func (b *backend) Dialect() string        { return "duckdb" }
func (b *backend) Placeholder(int) string { return "?" }
func (b *backend) Created() bool          { return b.created }

// SingleWriter reports that DuckDB lets one process open the file for
// writing, and others only read-only while no process writes: worker
// processes then open it with access_mode = "read_only".
func (b *backend) SingleWriter() bool { return true }

// openDB opens the file through duckdb-go's instance cache with the same
// configuration duckdb-go uses, so database/sql handles on the file in this
// process share the instance instead of failing on the file lock.
func (b *backend) openDB() error {
	return b.openWith(func(cfg mapping.Config, msg *string) mapping.State {
		return mapping.GetOrCreateFromCache(ddb.GetInstanceCache(), b.path, &b.db, cfg, msg)
	})
}

// openWith opens b.db through open with the backend's configuration.
func (b *backend) openWith(open func(mapping.Config, *string) mapping.State) error {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return fmt.Errorf("duckdb backend %q: create config", b.name)
	}
	defer mapping.DestroyConfig(&cfg)
	if mapping.SetConfig(cfg, "duckdb_api", "go") == mapping.StateError {
		return fmt.Errorf("duckdb backend %q: set config duckdb_api", b.name)
	}
	if b.mode != "" && mapping.SetConfig(cfg, "access_mode", b.mode) == mapping.StateError {
		return fmt.Errorf("duckdb backend %q: set config access_mode", b.name)
	}
	// Only at start: a running database refuses to change it.
	if b.allowUnsigned && mapping.SetConfig(cfg, "allow_unsigned_extensions", "true") == mapping.StateError {
		return fmt.Errorf("duckdb backend %q: set config allow_unsigned_extensions", b.name)
	}
	var msg string
	if open(cfg, &msg) == mapping.StateError {
		mapping.Close(&b.db)
		return fmt.Errorf("duckdb backend %q: open %s: %s", b.name, b.path, msg)
	}
	return nil
}

// connect opens a connection and applies the settings to it.
func (b *backend) connect(ctx context.Context) (*dconn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("duckdb backend %q: connect: %w", b.name, err)
	}
	var c mapping.Connection
	if mapping.Connect(b.db, &c) == mapping.StateError {
		mapping.Disconnect(&c)
		return nil, fmt.Errorf("duckdb backend %q: connect to %s failed", b.name, b.path)
	}
	d := &dconn{c: c}
	for _, s := range b.settings {
		if err := d.exec(ctx, s.sql()); err != nil {
			d.disconnect()
			return nil, fmt.Errorf("duckdb backend %q: setting %s = %q: %w", b.name, s.name, s.value, err)
		}
	}
	if err := b.loadExtensions(ctx, d); err != nil {
		d.disconnect()
		return nil, err
	}
	return d, nil
}

// Session opens a new connection for one client.
func (b *backend) Session(ctx context.Context) (drivers.Session, error) {
	d, err := b.connect(ctx)
	if err != nil {
		return nil, err
	}
	s := &session{b: b, d: d, stmts: map[*stmt]struct{}{}}
	if err := b.open.Track(s, b.what(), d.disconnect); err != nil {
		return nil, err
	}
	return s, nil
}

// what names the backend in errors.
func (b *backend) what() string { return fmt.Sprintf("duckdb backend %q", b.name) }

// Close interrupts the calls in flight on the sessions and loaders still
// open, closes them once those calls return, then releases the database; DuckDB checkpoints and closes the file once the
// last handle on it is gone. It never removes anything.
func (b *backend) Close() error {
	first, err := b.open.Close(closer.interrupt)
	if !first {
		return nil
	}
	b.admin.interrupt()
	b.adminMu.Lock()
	b.admin.disconnect()
	b.adminMu.Unlock()
	mapping.Close(&b.db)
	return err
}

// wrap adds the backend name, the operation and the head of the SQL text.
func (b *backend) wrap(op, sql string, err error) error {
	return fmt.Errorf("duckdb backend %q: %s %q: %w", b.name, op, abbrev(sql), err)
}

// abbrev returns the first 80 characters of sql on one line.
func abbrev(sql string) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if utf8.RuneCountInString(sql) <= 80 {
		return sql
	}
	n := 0
	for i := range sql {
		if n == 80 {
			return sql[:i] + "..."
		}
		n++
	}
	return sql
}

// removeFiles deletes the database file and its WAL.
func removeFiles(path string) error {
	var errs []error
	for _, p := range []string{path, path + ".wal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
