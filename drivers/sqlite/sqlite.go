// Package sqlite is the SQLite driver, built on mattn/go-sqlite3.
//
// It talks to go-sqlite3's driver-level connection (database/sql/driver)
// rather than through database/sql: each session owns one *SQLiteConn and
// its prepared *SQLiteStmt handles. Measured on a point lookup this halves
// the time per call (about 6 µs against 12 to 14 µs through a one-connection
// *sql.DB), because database/sql adds a goroutine per cancellable query,
// connection bookkeeping and a per-column value conversion even when rows
// are only counted. A counted query (the measured path: no destination
// for the rows) skips go-sqlite3's query path too and runs in one cgo call
// of the driver's own (count.go): reset, bind, every step, reset, from C
// memory the statement owns. Collected rows (checks, pulls) and
// parameters of other types (time.Time) take go-sqlite3's path.
//
// Each connection keeps the plan a statement was prepared with (SQLite's
// query planner stability guarantee): otherwise a statement such as the
// pull query, a UNION ALL filtered by a parameter, is compiled again at
// every call. SQLite's allocation statistics are off, so that the clients
// of one process do not queue on their process-wide mutex (tuning.go).
package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/internal/tracker"
)

// Name is the name the driver registers under in drivers.Default.
const Name = "sqlite"

func init() { drivers.Default.MustRegister(Name, New()) }

// New returns the SQLite driver, for tests that register into their own
// Registry.
func New() drivers.Driver { return sqliteDriver{} }

type sqliteDriver struct{}

// OptionNames lists the options Open accepts.
func (sqliteDriver) OptionNames() []string { return []string{"path", "readers", "stable_plans"} }

// WritingConnections implements drivers.WriteLimiter: SQLite runs one
// writing transaction at a time, so the writes of a stream of operations
// go through one writing session rather than fail or wait on its lock.
func (sqliteDriver) WritingConnections() int { return 1 }

// StoreCost implements drivers.StoreEstimator: the mentat workload at
// scale l (99,117,612 datoms, quiet, docs/runs/2026-12-02-xs-to-l): 18.1
// GiB; 65 s + 470 s + 49 s of load, after_load and analyze. The time per
// datom grows with the scale (4.2 us at s), so smaller scales come out
// high, within the plan's range.
func (sqliteDriver) StoreCost() drivers.StoreCost {
	return drivers.StoreCost{BytesPerDatom: 196, SecondsPerDatom: 5.9e-6}
}

// StorePath implements drivers.StoreLocator: the file Open would use.
func (sqliteDriver) StorePath(cfg drivers.Config) (string, error) {
	if cfg.Backend == "" {
		return dbPath(cfg, Name)
	}
	return dbPath(cfg, cfg.Backend)
}

// Dialect is "sqlite".
func (sqliteDriver) Dialect() string { return "sqlite" }

// defaultSettings apply unless the config sets the same pragma.
var defaultSettings = map[string]string{
	"journal_mode": "WAL",
	"synchronous":  "NORMAL",
	"busy_timeout": "10000",
}

// firstPragmas are applied before the others, in this order: busy_timeout
// so that the rest wait instead of failing on a locked file, page_size and
// auto_vacuum because they only take effect before the file is initialised
// (which journal_mode=WAL does).
var firstPragmas = []string{"busy_timeout", "page_size", "auto_vacuum"}

// readOnlyPragmas change only the connection, never the file: the ones
// applied before the store is known to be the engine's own.
var readOnlyPragmas = map[string]bool{"busy_timeout": true}

// filePragmas change the file, not the connection: a reader that opens
// the file immutable (read-only) leaves them to the backend's own
// connection.
var filePragmas = map[string]bool{"journal_mode": true, "page_size": true, "auto_vacuum": true}

// writeOnlyPragmas return no row when read, so Open cannot check them.
var writeOnlyPragmas = map[string]bool{"case_sensitive_like": true}

var (
	pragmaName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pragmaValue = regexp.MustCompile(`^(?:[A-Za-z0-9_.+-]+|'[^']*')$`)
)

type pragma struct{ name, value string }

// Open opens (creating if missing) the database file for cfg and checks
// that every setting is a pragma SQLite knows.
func (sqliteDriver) Open(ctx context.Context, cfg drivers.Config) (drivers.Backend, error) {
	name := cfg.Backend
	if name == "" {
		name = Name
	}
	path, err := dbPath(cfg, name)
	if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	pragmas, err := orderPragmas(cfg.Settings)
	if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("sqlite backend %q: create data directory: %w", name, err)
	}
	created := false
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	stable, err := stablePlansOption(cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	immutable, err := readersOption(cfg.Options)
	if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	if err := checkExtensionItems(cfg.Extensions); err != nil {
		return nil, fmt.Errorf("sqlite backend %q: %w", name, err)
	}
	b := &backend{name: name, path: path, created: created, pragmas: pragmas, stablePlans: stable, immutableReaders: immutable,
		extensions: cfg.Extensions, setup: cfg.SessionSetup}
	if created && len(cfg.Init) > 0 {
		if err := b.createWith(ctx, cfg.Init); err != nil {
			return nil, err
		}
	}
	// On a file it did not create the backend only reads until the engine
	// has found the file is its own (ApplySettings).
	b.applied.Store(created)
	admin, err := b.connect(ctx)
	if err != nil {
		if created {
			b.removeFiles()
		}
		return nil, err
	}
	b.admin = admin
	if !created {
		return b, nil
	}
	if err := b.checkPragmas(ctx); err != nil {
		admin.Close()
		if created {
			b.removeFiles()
		}
		return nil, err
	}
	return b, nil
}

// createWith makes the database file under a temporary name, runs init
// on it with every pragma applied, closes it (checkpointing its WAL into
// the file) and links it into place: the file appears whole, never empty.
func (b *backend) createWith(ctx context.Context, init []string) error {
	for _, old := range append(drivers.LeftoverCreating(b.path), drivers.CreatingName(b.path)) {
		(&backend{name: b.name, path: old}).removeFiles() // left by a killed creation
	}
	tmp := &backend{name: b.name, path: drivers.CreatingName(b.path), created: true, pragmas: b.pragmas}
	tmp.applied.Store(true)
	c, err := tmp.connect(ctx)
	if err != nil {
		tmp.removeFiles()
		return err
	}
	for _, q := range init {
		if _, err := c.ExecContext(context.Background(), q, nil); err != nil {
			c.Close()
			tmp.removeFiles()
			return b.wrap("create", q, err)
		}
	}
	if err := c.Close(); err != nil {
		tmp.removeFiles()
		return fmt.Errorf("sqlite backend %q: create %s: %w", b.name, b.path, err)
	}
	defer tmp.removeFiles()
	if _, err := os.Stat(tmp.path + "-wal"); err == nil {
		return fmt.Errorf("sqlite backend %q: create %s: the new file kept its WAL", b.name, b.path)
	}
	if err := drivers.LinkNew(tmp.path, b.path); err != nil {
		return fmt.Errorf("sqlite backend %q: create %s: %w", b.name, b.path, err)
	}
	return nil
}

// dbPath resolves the database file: the "path" option (relative paths are
// taken inside DataDir, where file databases live) or
// <DataDir>/<Backend>-<Scale>.sqlite. go-sqlite3 reads "?" as the start of
// its own DSN parameters and "file:" as a URI: both are refused.
func dbPath(cfg drivers.Config, name string) (string, error) {
	return drivers.StoreFile(cfg, name, ".sqlite", sqliteDriver{}.OptionNames(), "file:")
}

// orderPragmas merges the defaults with settings, validates names and
// values (they are spliced into PRAGMA statements), and orders them.
func orderPragmas(settings map[string]string) ([]pragma, error) {
	merged := map[string]string{}
	for k, v := range defaultSettings {
		merged[k] = v
	}
	for k, v := range settings {
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if !pragmaName.MatchString(k) {
			return nil, fmt.Errorf("setting %q: not a pragma name", k)
		}
		if !pragmaValue.MatchString(v) {
			return nil, fmt.Errorf("setting %s = %q: value must be a number, a keyword or a single-quoted string", k, v)
		}
		merged[k] = v
	}
	var out []pragma
	for _, k := range firstPragmas {
		if v, ok := merged[k]; ok {
			out = append(out, pragma{k, v})
			delete(merged, k)
		}
	}
	rest := make([]string, 0, len(merged))
	for k := range merged {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, pragma{k, merged[k]})
	}
	return out, nil
}

// closer is an open session or loader, closed by Backend.Close and Drop.
type closer interface{ Close() error }

type backend struct {
	name    string // the spec's backend name, for error context
	path    string
	created bool
	pragmas []pragma
	// stablePlans keeps each statement's plan (see stablePlans); the
	// stable_plans option, on by default.
	stablePlans bool
	// immutableReaders opens reader sessions immutable (the readers
	// option, see readers.go).
	immutableReaders bool
	// applied is false while the pragmas are held back on a file Open did
	// not create; connections then get only readOnlyPragmas.
	applied atomic.Bool
	// extensions are loaded into every connection, then setup runs on it
	// (extensions.go).
	extensions []drivers.Extension
	setup      []string

	// adminMu serialises use of admin, the connection behind Size,
	// Explain, ReadSettings and Version.
	adminMu sync.Mutex
	admin   *sqlite3.SQLiteConn

	open tracker.Set[closer]

	ev evidenceState // the sessions' SQLite counters (evidence.go)
}

func (b *backend) Dialect() string        { return "sqlite" }
func (b *backend) Placeholder(int) string { return "?" }
func (b *backend) Created() bool          { return b.created }

// connect opens a connection to the file and applies the pragmas.
func (b *backend) connect(ctx context.Context) (*sqlite3.SQLiteConn, error) {
	return b.connectTo(ctx, fileURI(b.path, ""), false)
}

// connectTo opens dsn (the file's path, or a file: URI naming it) and
// applies the pragmas; a reader (an immutable connection) gets only
// those of the connection, not those that would change the file.
func (b *backend) connectTo(ctx context.Context, dsn string, reader bool) (*sqlite3.SQLiteConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite backend %q: connect: %w", b.name, err)
	}
	dc, err := (&sqlite3.SQLiteDriver{}).Open(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite backend %q: open %s: %w", b.name, b.path, err)
	}
	c := dc.(*sqlite3.SQLiteConn)
	if b.stablePlans {
		if err := StablePlans(c); err != nil {
			c.Close()
			return nil, fmt.Errorf("sqlite backend %q: open %s: %w", b.name, b.path, err)
		}
	}
	applied := b.applied.Load()
	for _, p := range b.pragmas {
		if !applied && !readOnlyPragmas[p.name] || reader && filePragmas[p.name] {
			continue
		}
		q := "PRAGMA " + p.name + " = " + p.value
		// A background context takes go-sqlite3's one-call exec path;
		// pragmas are quick and ctx was checked above.
		if _, err := c.ExecContext(context.Background(), q, nil); err != nil {
			c.Close()
			return nil, b.wrap("apply setting", q, err)
		}
	}
	if err := loadExtensions(c, b.extensions); err != nil {
		c.Close()
		return nil, fmt.Errorf("sqlite backend %q: %w", b.name, err)
	}
	if err := b.sessionSetup(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkPragmas reads every pragma back once: SQLite silently ignores
// unknown pragmas, and a misspelt setting must not pass unnoticed.
func (b *backend) checkPragmas(ctx context.Context) error {
	for _, p := range b.pragmas {
		if writeOnlyPragmas[p.name] {
			continue
		}
		v, ok, err := b.readPragma(ctx, p.name)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("sqlite backend %q: setting %s: unknown pragma (it reads back no value)", b.name, p.name)
		}
		if p.name == "journal_mode" && !strings.EqualFold(v, strings.Trim(p.value, "'")) {
			return fmt.Errorf("sqlite backend %q: setting journal_mode = %s: database stays in %s mode", b.name, p.value, v)
		}
	}
	return nil
}

// ApplySettings applies the pragmas held back on a file Open did not
// create, once the engine has established the file is its own, and checks
// them. Sessions opened before keep only the read-only ones.
func (b *backend) ApplySettings(ctx context.Context) error {
	if b.applied.Swap(true) {
		return nil
	}
	b.adminMu.Lock()
	for _, p := range b.pragmas {
		if readOnlyPragmas[p.name] || b.admin == nil {
			continue
		}
		q := "PRAGMA " + p.name + " = " + p.value
		if _, err := b.admin.ExecContext(context.Background(), q, nil); err != nil {
			b.adminMu.Unlock()
			return b.wrap("apply setting", q, err)
		}
	}
	b.adminMu.Unlock()
	return b.checkPragmas(ctx)
}

// Session opens a new connection for one client.
func (b *backend) Session(ctx context.Context) (drivers.Session, error) {
	c, err := b.connect(ctx)
	if err != nil {
		return nil, err
	}
	return b.newSession(c)
}

// newSession makes c a session the backend closes with itself.
func (b *backend) newSession(c *sqlite3.SQLiteConn) (drivers.Session, error) {
	s := &session{b: b, conn: c, stmts: map[*stmt]struct{}{}}
	if err := b.open.Track(s, b.what(), func() { c.Close() }); err != nil {
		return nil, err
	}
	b.ev.add(s)
	return s, nil
}

// what names the backend in errors.
func (b *backend) what() string { return fmt.Sprintf("sqlite backend %q", b.name) }

// Close closes the sessions and loaders still open (they must not be in
// use) and the backend's own connection. It never removes anything.
func (b *backend) Close() error {
	first, err := b.open.Close(nil)
	if !first {
		return nil
	}
	errs := []error{err}
	b.adminMu.Lock()
	if b.admin != nil {
		if err := b.admin.Close(); err != nil {
			errs = append(errs, fmt.Errorf("sqlite backend %q: close: %w", b.name, err))
		}
		b.admin = nil
	}
	b.adminMu.Unlock()
	return errors.Join(errs...)
}

// wrap adds the backend name, the operation and the head of the SQL text.
func (b *backend) wrap(op, sql string, err error) error {
	return fmt.Errorf("sqlite backend %q: %s %q: %w", b.name, op, abbrev(sql), err)
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

// convertArg maps a parameter to a value go-sqlite3 binds. The common
// types pass through unchanged so the interface is not re-boxed.
func convertArg(v any) (driver.Value, error) {
	switch x := v.(type) {
	case nil, int64, float64, string, bool, []byte, time.Time:
		return v, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint8:
		return int64(x), nil
	case uint:
		if uint64(x) > 1<<63-1 {
			return nil, fmt.Errorf("uint %d overflows int64", x)
		}
		return int64(x), nil
	case uint64:
		if x > 1<<63-1 {
			return nil, fmt.Errorf("uint64 %d overflows int64", x)
		}
		return int64(x), nil
	case float32:
		return float64(x), nil
	default:
		if dv, ok := v.(driver.Valuer); ok {
			val, err := dv.Value()
			if err != nil {
				return nil, err
			}
			return driver.DefaultParameterConverter.ConvertValue(val)
		}
		return nil, fmt.Errorf("unsupported parameter type %T", v)
	}
}
