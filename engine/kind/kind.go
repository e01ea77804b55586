// Package kind defines scenario kinds: how a scenario's own attributes are
// read from HCL, which points it expands into for the plan, and how each
// point runs against the sessions of one cell, emitting rows.
//
// The engine's core (config, plan, runner) names no kind: it asks a
// Registry. The kinds the project ships are in engine/kinds: closed_loop
// (streams of clients at each client count), cold_warm (restart, then
// the first call against the next ones), sustained (streams for a fixed
// duration, windows), open_loop (calls at a fixed rate), write_mixed
// (one writer and readers, verified) and capacity (the highest rate, or
// the most clients, a service level holds at). A new kind is one package that
// implements Kind, is registered, and passes the conformance suite
// (engine/kindtest), without touching the core. A kind with files of its
// own registers their reading (results.RegisterOutput), its report
// section (report.RegisterSection) and its compare rule
// (compare.RegisterRule) from its package too: see engine/kinds/capacity.
package kind

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Kind is one kind of scenario. Implementations must be safe for
// concurrent use and hold no per-scenario state (Decode returns that).
type Kind interface {
	// Name is what a scenario's `kind = "..."` says.
	Name() string
	// Schema lists the attributes and blocks a scenario of this kind may
	// hold besides the ones every scenario has (description, kind,
	// backends, sampling, check).
	Schema() *hcl.BodySchema
	// Decode reads the scenario's own attributes and blocks. ctx holds
	// var.*, local.* and query.* (each query name evaluates to itself);
	// it holds no scale or backend: a scenario is the same in every cell.
	Decode(content *hcl.BodyContent, ctx *hcl.EvalContext) (Definition, hcl.Diagnostics)
}

// Definition is one scenario decoded by its kind.
type Definition interface {
	// Queries lists every query the scenario runs, so each is validated,
	// prepared and explained before the scenario starts.
	Queries() []string
	// Points are what the scenario runs in each cell, in order. s is the
	// scenario's sampling.
	Points(s measure.Sampling) []Point
	// Writes reports whether running the scenario changes the store's
	// data: the store is then marked as written and never reused as a
	// clean one.
	Writes() bool
}

// ScaleFilter is implemented by definitions that run on some scales only
// (the seed suite's sustained run: the largest selected scale).
type ScaleFilter interface {
	RunsOnScale(name string) bool
}

// Sampled is implemented by definitions whose runs the spec's samplers
// watch when a sampler does not name its scenarios.
type Sampled interface {
	Sampled() bool
}

// Point is one unit of a scenario's work in a cell: what `plan` prints
// and the runner runs.
type Point interface {
	// Describe is the point's line in the plan.
	Describe() string
	// Estimate bounds the point's wall time from the sampling.
	Estimate() (lo, hi time.Duration)
	// Run measures the point and emits its rows through env. An error
	// means the point could not run (it is reported and the scenario
	// goes on with its next point); errors of single calls are counted in
	// the rows instead.
	Run(ctx context.Context, env Env) error
}

// Expecter is implemented by points whose typical wall time is better
// known than the middle of their bounds (an adaptive rep usually stops
// well before max_s): plan's best estimate, within Estimate's lo and hi.
type Expecter interface {
	Expected() time.Duration
}

// Repeatable is implemented by points whose reps are independent
// measurements of the same thing, so other points may run between two of
// them. In the sampling order "interleaved" the runner runs rep 1 of every
// such point of a cell, then rep 2, and so on: the variation between a
// point's reps, which compare judges, then spans the run's drift instead of
// the few seconds its reps take back to back. Run stays the sequential
// order (RunReps over Reps).
type Repeatable interface {
	Point
	// Reps prepares the point's reps against env; nothing runs yet.
	Reps(env Env) RepRun
}

// RepRun is one point's reps, run one at a time. What a rep opens to
// measure with (clients, worker processes) stays open for the next rep
// until Release, so that reps run back to back share them as before, and
// a runner that runs other points in between releases them first.
type RepRun interface {
	// Count is how many reps the point runs.
	Count() int
	// Rep measures rep n (1 to Count, in order) and emits its raw rows. It
	// reports done when the point wants no further rep: its probe found a
	// ceiling, or an error ended it (returned too).
	Rep(ctx context.Context, n int) (done bool, err error)
	// Release closes what the reps hold open; the next Rep opens it again.
	Release() error
	// Finish releases what is open and emits what summarises the reps
	// measured (timing rows: the median over reps). Called once, after the
	// last rep that ran.
	Finish() error
	// Saved encodes what rep n, just measured, leaves for Finish (its
	// rows, its histograms): a run interrupted between two reps keeps it
	// beside the rep's record, and the resumed run gives it back.
	Saved(n int) ([]byte, error)
	// Restore gives back reps 1 to len(saved), Saved by an interrupted
	// run whose rows are on disk: the next Rep is len(saved)+1, and
	// Finish summarises them with the reps measured after.
	Restore(saved [][]byte) error
}

// RunReps runs every rep of r back to back, then finishes it: the
// sequential order, and a Repeatable point's Run.
func RunReps(ctx context.Context, r RepRun) error {
	return RunRepsWhile(ctx, r, nil)
}

// RunRepsWhile is RunReps that runs a rep only while more (when set)
// says so: a threshold with abort ends a point between two reps.
func RunRepsWhile(ctx context.Context, r RepRun, more func() bool) error {
	var runErr error
	for n := 1; n <= r.Count(); n++ {
		if more != nil && n > 1 && !more() {
			break
		}
		done, err := r.Rep(ctx, n)
		if err != nil || done {
			runErr = err
			break
		}
	}
	return errors.Join(runErr, r.Finish())
}

// Env is what a point runs against: the sessions of one cell and the
// run's one way out for rows.
type Env interface {
	// Sampling is the scenario's sampling.
	Sampling() measure.Sampling
	// Seed makes parameters deterministic per run.
	Seed() uint64
	// OpenClient opens one client: a session with the statements of mix
	// prepared and its own deterministic parameter source for index.
	OpenClient(ctx context.Context, mix []string, index int, seed uint64) (Client, error)
	// Row returns a row with the point's scenario, backend, scale and
	// dataset size set.
	Row() results.Row
	// Emit writes a record (raw, timing, ...) to the results and the
	// console. Rows are on disk when Emit returns.
	Emit(rec results.Record)
	// Logf writes a progress line.
	Logf(format string, args ...any)
	// LogErrors records a stream's failed calls (count, timeouts, first
	// message) in logs/errors.log.
	LogErrors(r measure.Result)
	// Restart closes every connection and the store, restarts what the
	// backend declares (its restart command, else the server it names),
	// empties the OS page cache of the store, and reopens the store. It
	// returns how long reopening took and what was done, or why the next
	// calls are not cold. An error means the store could not be reopened.
	Restart(ctx context.Context) (RestartInfo, error)
}

// RestartInfo says what a Restart did.
type RestartInfo struct {
	Open          time.Duration // reopening the store and its first session
	Restarted     bool          // a server was restarted (a command ran)
	CachesDropped bool          // the OS page cache was emptied of the store
	// Did says what was restarted and how the page cache was emptied.
	Did string
	// NotCold, when set, says why the next calls are not cold (nothing
	// could restart the server or empty the page cache): a kind then
	// measures no call as cold.
	NotCold string
}

// Client is one client of a point: a session looping over its mix.
type Client interface {
	// Call runs the next statement of the mix; rows are only counted.
	Call(ctx context.Context) error
	Close()
}

// Registry maps kind names to kinds. It refuses duplicates. The zero value
// is not usable; use NewRegistry.
type Registry struct {
	mu    sync.RWMutex
	kinds map[string]Kind
	def   string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]Kind{}} }

// Default is the registry the CLI uses, filled by blank-importing
// engine/kinds/all.
var Default = NewRegistry()

// ErrDuplicate is returned when a name is registered twice.
var ErrDuplicate = errors.New("scenario kind already registered")

// Register adds k under its name.
func (r *Registry) Register(k Kind) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.kinds[k.Name()]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, k.Name())
	}
	r.kinds[k.Name()] = k
	return nil
}

// MustRegister is Register for init functions.
func (r *Registry) MustRegister(k Kind) {
	if err := r.Register(k); err != nil {
		panic(err)
	}
}

// SetDefault names the kind of scenarios that do not say `kind`.
func (r *Registry) SetDefault(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.def = name
}

// DefaultName is the kind of scenarios that do not say `kind`.
func (r *Registry) DefaultName() string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.def
}

// Lookup returns the kind registered under name.
func (r *Registry) Lookup(name string) (Kind, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	k, ok := r.kinds[name]
	return k, ok
}

// Names lists the registered kinds, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
