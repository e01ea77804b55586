package plan

import "github.com/mentat-spec/mentat-spec/drivers"

// Backend is a backend block resolved for one (scale, backend) cell:
// what the runner sets up, loads and talks to.
type Backend struct {
	Name       string
	Driver     string
	Dialect    string // picks each query's SQL text
	Options    map[string]string
	Settings   map[string]string
	Setup      []string // SQL texts, each possibly several statements
	AfterLoad  []string
	Analyze    []string // statements timed as analyze_s in loads.csv
	Vacuum     []string // statements timed as vacuum_s
	Restart    []string // a command run by the engine (argv)
	DropCaches []string // a command run by the engine (argv)
	Load       Load
	// ClientModel is how clients run: ClientsGoroutine, ClientsProcess
	// (one worker process per client) or ClientsProcesses (Processes
	// worker processes sharing the clients).
	ClientModel string
	Processes   int
	// SkipScenarios are scenarios this backend does not run (the seed suite's
	// per-backend scenario filter).
	SkipScenarios []string
	// Extensions are in force on every session the engine opens, and
	// SessionSetup runs on each (extensions.go); Explain is the statement
	// that explains a query (its :q the query's text), instead of the
	// database's own EXPLAIN.
	Extensions              []drivers.Extension
	AllowUnsignedExtensions bool
	SessionSetup            []string
	Explain                 string
}

// Client models of a backend's `client_model` attribute.
const (
	ClientsGoroutine = "goroutine"
	ClientsProcess   = "process"
	ClientsProcesses = "processes"
)

// Load is the backend's `load {}` block.
type Load struct {
	// Tables maps "attrs" and the storage classes "text", "int", "real" to
	// table names.
	Tables    map[string]string
	Jobs      int
	BatchRows int
	Declared  bool
	// Statement, when set, loads through the store's own API instead of
	// the bulk path: each batch of at most BatchDatoms datoms of the
	// dataset's transactions, rendered as Format ("edn" or "json") with
	// IDs ("entity" or "tempid"), bound to the statement's :tx.
	Statement   string
	Format      string
	BatchDatoms int
	IDs         string
}

// LoadTableKeys are the keys `load { tables = {...} }` accepts.
var LoadTableKeys = []string{"attrs", "text", "int", "real"}

// Driver is what a spec needs to know of a database driver before
// anything is opened.
type Driver interface {
	// Dialect picks each query's SQL text.
	Dialect() string
	// OptionNames are the backend attributes the driver accepts.
	OptionNames() []string
}

// DriverSet finds drivers by name; Names lists them for diagnostics.
type DriverSet interface {
	Driver(name string) (Driver, bool)
	Names() []string
}
