// Package drivers defines the small interface every database driver
// implements and a Registry to find drivers by name. A driver knows its
// database; it knows no scenario, query or dataset.
//
// What a spec needs before anything is opened (the SQL dialect, the
// option names) is on the Driver. Everything else is optional: a separate
// interface the engine detects with a type assertion, and a driver
// implements the ones its database can answer.
//
// On the Driver (facts plan and the runner read before opening):
//
//	ConfigValidator    refuses a backend's options that cannot work, with the fix
//	ReadOnlyReaders    options under which reader sessions cannot see writes
//	WriteLimiter       how many connections may write at once
//	OptionsWriteLimiter  the same for a backend's options: an adapter's hello (WriteLimit reads either)
//	StoreEstimator     a loaded store's bytes and load seconds per datom
//	StoreLocator       the file a store lives in, for the free-space check
//	CacheSetting       the name of the database's buffer cache setting (shared_buffers), for sizes.txt and the summary
//	StoreLocker        the store's exclusive lock, held for a run
//	ServerCommands     the server's process names, whose CPU is the run's own
//	ExtensionChecker   refuses extensions that cannot be loaded, before any store is opened
//	ErrorClassifier    the class of one of its errors (busy, serialization, deadlock, conflict, timeout, disk full)
//	DetailedSettings   which env.txt lines list the database's whole configuration, and their name
//	Describer          more than the options, for plan: an adapter's program and its hello
//
// On the Backend (never on a Session):
//
//	BulkLoader         a fast load path, one Loader per load job
//	SettingsApplier    settings that write to the store, held back until it is known to be ours
//	SettingsReader     the values in force of named settings, for env.txt
//	EnvReporter        what else the database has in force, for env.txt
//	Versioner          the database's version, for env.txt
//	Sizer              the store's size on disk
//	CacheSizer         the database's buffer cache, beside the store's size
//	Explainer          a statement's plan in the database's own format
//	Dropper            removes a store the engine created
//	ReaderSessions     cheaper sessions for clients that only read
//	OneWritingProcess  one process at a time may open the store for writing
//	ColdStarter        how to make the next opening cold: the server to restart, the files to evict
//	StatementStats     the server's per-statement statistics for a point
//	EvidenceCollector  what the database's own instruments say it did during a point (evidence.csv)
//	EvidenceProbe      one point's collection under way, returned by EvidenceCollector
//	EvidenceRebaser    a probe that starts its counters again once the clients are warm
//	AnalyzeExplainer   the plan with what one execution did (actual rows, buffers, per-operator times)
//	ServerLog          the server's log file, copied per cell
//	ExtensionReporter  the identity of the extensions in force, for env.txt
//
// On a Stmt:
//
//	ColumnNamer        the column names of its last result, for checks
package drivers

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/mentat-spec/mentat-spec/drivers/storelock"
)

// Config opens one backend store for one (scale, backend) cell.
type Config struct {
	Backend string // the spec's backend name, e.g. "postgres"
	Scale   string // the scale name, e.g. "xs"
	// DataDir is where file databases live (created if missing).
	DataDir string
	// Options are driver-owned string options from the spec's backend block
	// (e.g. "dsn", "database", "path", "protocol"). Drivers reject unknown keys.
	Options map[string]string
	// Settings are database settings (SQLite pragmas, PostgreSQL GUCs,
	// DuckDB SET options) applied to every connection, and where the
	// database supports it to the database itself.
	Settings map[string]string
	// Init are statements Open runs on a store it creates before the store
	// appears under its name (file stores: made under a temporary name,
	// then linked into place), so that a process killed right after
	// creating a store leaves one that says who made it, never one that is
	// then refused as foreign. A driver that ignores it leaves that window
	// open between its creation and the engine's first write.
	Init []string
	// Extensions are loaded into (SQLite, DuckDB) or created in
	// (PostgreSQL) every session the backend opens, before anything else
	// runs on it; AllowUnsignedExtensions lets DuckDB load an unsigned file.
	Extensions              []Extension
	AllowUnsignedExtensions bool
	// SessionSetup are statements run on every new session (client,
	// writer, checks, loader) after the settings and extensions.
	SessionSetup []string
}

// Driver opens backends. Implementations must be safe for concurrent use.
type Driver interface {
	// Dialect names the SQL dialect ("sqlite", "postgres", "duckdb"); the
	// engine picks a query's text by it. Backends report the same.
	Dialect() string
	// OptionNames lists the backend options the driver accepts, so a
	// spec's unknown option is reported at its line before anything runs.
	OptionNames() []string
	// Open connects to (creating if missing) the store for cfg.
	Open(ctx context.Context, cfg Config) (Backend, error)
}

// StoreLocker is implemented by drivers whose stores two runs could use
// at once. LockStore takes cfg's store's exclusive lock before Open, for
// as long as the run uses the store, waiting as w says; the lock is
// released by Release or by the process's end, however it ends.
type StoreLocker interface {
	LockStore(ctx context.Context, cfg Config, w storelock.Wait) (storelock.Lock, error)
}

// LockStoreFile is LockStore for a driver whose store is a file: the lock
// file beside the file loc resolves for cfg.
func LockStoreFile(ctx context.Context, loc StoreLocator, cfg Config, w storelock.Wait) (storelock.Lock, error) {
	path, err := loc.StorePath(cfg)
	if err != nil {
		return nil, fmt.Errorf("backend %q: %w", cfg.Backend, err)
	}
	return LockFile(ctx, path, w)
}

// LockFile is the lock of a file store at path: path.lock beside it.
func LockFile(ctx context.Context, path string, w storelock.Wait) (storelock.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return storelock.File(ctx, path+".lock", "store "+path, w)
}

// Backend is one open store. Sessions may be used concurrently, one
// goroutine each.
type Backend interface {
	// Dialect names the SQL dialect ("sqlite", "postgres", "duckdb"); the
	// engine picks a query's text by it.
	Dialect() string
	// Placeholder returns the bind marker for the i-th (1-based) parameter:
	// "?" or "$1".
	Placeholder(i int) string
	// Created reports whether Open created the store (it did not exist).
	Created() bool
	// Session opens a new connection for one client.
	Session(ctx context.Context) (Session, error)
	// Close releases the backend; it never drops anything.
	Close() error
}

// Session is one client's connection.
type Session interface {
	// Exec runs one statement without parameters (setup, DDL, SET).
	Exec(ctx context.Context, sql string) error
	// Prepare readies a statement with positional parameters for repeated
	// calls. Drivers may prepare server-side or simply keep the text.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	Close() error
}

// Stmt is a prepared statement of one session.
type Stmt interface {
	// Query runs the statement with args. When dst is nil the rows are only
	// counted (the timing path: no per-row allocation); otherwise each row
	// is appended to *dst as values converted to int64, float64, string,
	// bool, []byte, time.Time or nil. It returns the number of rows. A
	// context cancelled mid-call interrupts the call and leaves the session
	// usable for the next call.
	Query(ctx context.Context, args []any, dst *[][]any) (int64, error)
	Close() error
}

// ColumnNamer is implemented by statements that report the column names
// of their last Query's result; checks compare columns by name.
type ColumnNamer interface {
	Columns() []string
}

// TableSpec names a table and the columns a loader fills, in order.
type TableSpec struct {
	Name    string
	Columns []string
}

// BulkLoader is implemented by backends with a fast load path (COPY, the
// DuckDB appender, prepared inserts in large transactions).
type BulkLoader interface {
	// NewLoader opens one load job on its own connection. Several loaders
	// may run at once on disjoint rows.
	NewLoader(ctx context.Context, tables []TableSpec) (Loader, error)
}

// Loader appends rows to the tables it was opened for.
type Loader interface {
	// Append adds one row to tables[table]. The row slice is only valid
	// during the call, but the values in it (int64, float64, string or
	// bool) may be kept until the next Flush: callers never hand over
	// strings that share a reused buffer.
	Append(table int, row []any) error
	// Flush makes everything appended so far durable as one transaction.
	Flush(ctx context.Context) error
	// Close flushes nothing: call Flush first. It releases the connection.
	Close() error
}

// ErrConnLost is wrapped by the errors of calls that found the connection
// to the database gone (a server stopped or restarted). The engine counts
// it once per client and ends the point, instead of one error per call.
var ErrConnLost = errors.New("connection to the database lost")

// SettingsApplier is implemented by backends that hold back, on a store
// they did not create, the settings that would write to it (SQLite's
// journal_mode rewrites the file header): Open and Sessions opened before
// ApplySettings only read. The engine calls it once it has established the
// store is its own (or is to be used as it is), then reopens its sessions,
// so refusing a foreign store leaves it byte-identical.
type SettingsApplier interface {
	ApplySettings(ctx context.Context) error
}

// Sizer reports the store's size on disk in bytes.
type Sizer interface {
	Size(ctx context.Context) (int64, error)
}

// CacheSizer reports the database's buffer cache (PostgreSQL's
// shared_buffers) in bytes, for sizes.txt: a store larger than its cache
// measures the disk, not the database.
type CacheSizer interface {
	CacheSize(ctx context.Context) (int64, error)
}

// CacheSetting names the database setting that sizes the buffer cache
// CacheSizer reports (PostgreSQL's shared_buffers, DuckDB's
// memory_limit), so the reports call the cache what the database does.
type CacheSetting interface {
	CacheSetting() string
}

// Explainer returns the plan of a statement in the database's own format.
type Explainer interface {
	Explain(ctx context.Context, sql string, args []any) (string, error)
}

// Dropper removes the store Open connected to. The engine calls it only
// for stores it created itself (recorded in the store's own meta table).
type Dropper interface {
	Drop(ctx context.Context) error
}

// SettingsReader reads back the values in force of the given settings, for
// env.txt.
type SettingsReader interface {
	ReadSettings(ctx context.Context, names []string) (map[string]string, error)
}

// Versioner reports the database's version string for env.txt.
type Versioner interface {
	Version(ctx context.Context) (string, error)
}

// ConfigValidator is implemented by drivers that can tell, before
// anything is opened or written, that a backend's options cannot work (a
// PostgreSQL backend without a DSN), with the fix in the error.
type ConfigValidator interface {
	ValidateConfig(cfg Config) error
}

// ServerCommands is implemented by drivers whose database runs in server
// processes that may share the machine: their command names (comm). The
// CPU those processes take during a point is the run's own work, which
// the machine's noise (noise.csv) leaves out.
type ServerCommands interface {
	ServerCommands() []string
}

// ReaderSessions is implemented by backends that can open a cheaper
// session for a client that only reads (SQLite's immutable readers, which
// take no file locks). The engine asks for one only for the clients of a
// point that does not write, writes nothing through it, and writes nothing
// to the store while one is open. A backend without a cheaper way returns
// an ordinary session.
type ReaderSessions interface {
	ReaderSession(ctx context.Context) (Session, error)
}

// ReadOnlyReaders is implemented by drivers whose options can make the
// reader sessions of a backend unable to see writes (SQLite's immutable
// readers): a scenario that writes cannot run there, and says why.
type ReadOnlyReaders interface {
	ReadersRefuseWrites(options map[string]string) (why string, refuse bool)
}

// OneWritingProcess is implemented by backends whose database lets one
// process open the store for writing (DuckDB): the engine's worker
// processes then open it read-only while the run releases its own handle,
// and a scenario that writes runs its clients in the engine's process.
type OneWritingProcess interface {
	SingleWriter() bool
}

// StoreEstimator is implemented by drivers that know what a loaded store
// costs per datom before it exists: bytes on disk, and seconds of bulk
// load plus after-load SQL (measured with the mentat workload), so that a
// run says what a cell will take and refuses a store that would not fit
// before loading it.
type StoreEstimator interface {
	StoreCost() StoreCost
}

// StoreCost is what one datom costs a loaded store.
type StoreCost struct {
	BytesPerDatom   float64
	SecondsPerDatom float64
}

// StoreLocator is implemented by drivers that keep a store in a file: the
// file a backend opened with cfg uses, so that a run checks the free
// space where it will go (and says which directory is full).
type StoreLocator interface {
	StorePath(cfg Config) (string, error)
}

// WriteLimiter is implemented by drivers whose database lets a limited
// number of connections write at once (SQLite and DuckDB: one writing
// transaction at a time). The engine then funnels the writes of a stream
// of operations through that many writing sessions and plan says so; a
// driver without it takes a writing session per client.
type WriteLimiter interface {
	WritingConnections() int
}

// Registry maps driver names to drivers. The zero value is not usable; use
// NewRegistry. Default is filled by blank-importing drivers/all.
type Registry struct {
	mu      sync.RWMutex
	drivers map[string]Driver
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{drivers: map[string]Driver{}} }

// Default is the registry the CLI uses.
var Default = NewRegistry()

// ErrDuplicate is returned when a name is registered twice.
var ErrDuplicate = errors.New("driver already registered")

// Register adds d under name; a second registration of a name fails.
func (r *Registry) Register(name string, d Driver) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.drivers[name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, name)
	}
	r.drivers[name] = d
	return nil
}

// MustRegister is Register for init functions of driver packages, where a
// duplicate is a programming error.
func (r *Registry) MustRegister(name string, d Driver) {
	if err := r.Register(name, d); err != nil {
		panic(err)
	}
}

// Lookup returns the driver registered under name.
func (r *Registry) Lookup(name string) (Driver, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.drivers[name]
	return d, ok
}

// Names lists the registered drivers, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.drivers))
	for n := range r.drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LinkNew puts the file made at tmp under the name path, failing if path
// exists: a hard link where the file system has them, else a rename.
func LinkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	return os.Rename(tmp, path)
}

// CreatingName is the temporary name under which this process makes the
// file path before linking it into place (see LinkNew).
func CreatingName(path string) string { return fmt.Sprintf("%s.creating-%d", path, os.Getpid()) }

// LeftoverCreating lists the temporary files of path (CreatingName) left by
// processes that no longer run, so that a driver can remove them. It finds
// none where it cannot tell (no /proc).
func LeftoverCreating(path string) []string {
	if _, err := os.Stat("/proc/self"); err != nil {
		return nil
	}
	matches, _ := filepath.Glob(path + ".creating-*")
	var out []string
	for _, m := range matches {
		pid, err := strconv.Atoi(m[len(path)+len(".creating-"):])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); errors.Is(err, fs.ErrNotExist) {
			out = append(out, m)
		}
	}
	return out
}

// ColdStarter is implemented by backends that can say, while the store is
// open, how to make its next opening cold: which server to restart (none
// for a store living in this process, whose closing is its restart) and
// which files hold the store, so the engine can evict them from the OS
// page cache and check that they left it.
type ColdStarter interface {
	ColdStart(ctx context.Context) (ColdStart, error)
}

// ColdStart is what a backend reports for a cold start.
type ColdStart struct {
	// Restart restarts the database server (argv, run by the engine once
	// the store is closed); empty when nothing runs outside this process.
	Restart []string
	// Server names what Restart restarts, for the results.
	Server string
	// NoRestart says why a server that needs restarting cannot be
	// restarted from here (a remote host, no permission).
	NoRestart string
	// Files are the store's files and directories (walked), to evict from
	// the OS page cache; NoFiles says why there are none.
	Files   []string
	NoFiles string
}
