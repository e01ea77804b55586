// Package runner executes a plan: for each (scale, backend) cell it loads
// the dataset into a store the run created (or reuses one an earlier run
// loaded), runs every point of every scenario through its kind, checks
// answers against the generator's truth, and sends each result through one
// sink (the results directory and the console) as soon as it is measured.
// It reads no HCL and names no workload and no scenario kind: everything
// comes resolved from the plan.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/drivers/storelock"
	"github.com/mentat-spec/mentat-spec/engine/crosscheck"
	"github.com/mentat-spec/mentat-spec/engine/gather"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/journal"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/memuse"
	"github.com/mentat-spec/mentat-spec/engine/noise"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
	"github.com/mentat-spec/mentat-spec/engine/progress"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/results/console"
	"github.com/mentat-spec/mentat-spec/engine/threshold"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// Phases of a run.
const (
	PhaseAll   = "all"   // load where needed, then measure and check
	PhaseLoad  = "load"  // load and check only
	PhaseBench = "bench" // reuse loaded stores; never load
	// PhaseSustained reuses loaded stores, never loads, and runs only the
	// scenarios of the kinds in Options.Kinds (the CLI: sustained).
	PhaseSustained = "sustained"
)

// Options configure a run.
type Options struct {
	Registry   *drivers.Registry
	ResultsDir string // the run's directory (created; appended to if it exists)
	DataDir    string // where drivers put file databases by default
	Phase      string
	Reload     bool // drop and reload stores this tool created even when already loaded
	// Resume continues the interrupted run of the same plan in
	// ResultsDir (its journal, logs/done.log): the points and checks it
	// finished are not run again, and what it wrote after them is moved
	// under interrupted/.
	Resume  bool
	Workers int // parallelism of dataset counting and truth
	// MaxStoreBytes refuses to load a store estimated larger (0: no limit
	// besides the free disk of file stores).
	MaxStoreBytes int64
	Log           io.Writer
	// Env are extra env.txt lines (command line, version).
	Env []results.KV
	// Sensitive reports env keys whose values must be redacted, besides
	// the plan's sensitive variables.
	Sensitive func(key string) bool
	// Kinds, when set, are the only scenario kinds that run (and check).
	Kinds []string
	// Progress, when set, shows live progress; Log should write through it.
	Progress *progress.Progress
	// Watch, when set, follows the run as Progress does: every record
	// and every task (a metrics endpoint).
	Watch Watcher
	// Launcher starts the worker processes of backends whose clients are
	// processes (nil: such backends' points fail).
	Launcher *worker.Launcher
	// LockWait is how long to wait for another run holding the results
	// directory or a store: 0 waits as long as ctx lasts, a negative value
	// refuses at once.
	LockWait time.Duration
}

// Watcher follows a run as it goes, for a live view besides Progress.
type Watcher interface {
	results.Sink
	// Planned is what the run's phase measures: its points and the
	// plan's estimate; called once, before any task.
	Planned(points int, est time.Duration)
	// Begin starts a task (a load, a point, a rep) estimated at est;
	// count, when not nil, reports its calls and errors so far.
	Begin(task string, est time.Duration, count func() (n, errs int64))
	// End finishes the running task.
	End()
	// Skip counts an estimated task as done without running it.
	Skip(est time.Duration)
	// PointDone counts one point measured, or given up.
	PointDone()
}

// Outcome summarises a finished run.
type Outcome struct {
	Checks results.CheckCounts
	// Failures are cells or scenarios that could not run, with the reason.
	Failures []string
	Rows     []results.Row // the timings rows written, for the console table
	// Interrupted is set when the caller's context ended the run.
	Interrupted bool
}

// Failed reports whether the run must exit non-zero.
func (o *Outcome) Failed() bool { return o.Checks.Fail > 0 || len(o.Failures) > 0 }

type run struct {
	opts Options
	tap  gather.Tap // a point's raw rows, for its latency split
	plan *plan.Plan
	dir  *results.Dir
	sink results.Sink
	out  *Outcome
	// stop ends the run when its results can no longer be written (a
	// full disk): measuring on would lose every row.
	stop context.CancelCauseFunc
	// cross holds the running scale's answers for the cross-backend
	// comparison (engine/crosscheck).
	cross *crosscheck.Scale
	// gates judges the plan's thresholds on the points' histograms;
	// measured lists the cells whose scenarios ran, for its SKIP lines.
	gates    *threshold.Gates
	measured []threshold.Cell
	// noise samples the machine around every point; noiseRows are the
	// run's, summarised in env.txt at its end.
	noise     *noise.Sampler
	noiseRows []results.NoiseRow
	// interrupted reports whether the caller's context ended the run (a
	// Ctrl-C): what fails after that is the interrupt, not news.
	interrupted func() bool
	// journal records each point and check as it is on disk, for a
	// resume (resume.go).
	journal *journal.Journal
	// mem measures the engine's memory by phase (memory.csv).
	mem *memuse.Meter
}

// Run executes p. The results directory is complete (summary.md included)
// whenever Run returns, also on error.
func Run(ctx context.Context, p *plan.Plan, opts Options) (*Outcome, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Phase == "" {
		opts.Phase = PhaseAll
	}
	if opts.Workers < 1 {
		opts.Workers = 1
	}
	// One run at a time appends to a results directory: two would
	// interleave their rows and checks.
	if err := os.MkdirAll(opts.ResultsDir, 0o755); err != nil {
		return nil, fmt.Errorf("opening results directory: %w", err)
	}
	dirLock, err := storelock.File(ctx, filepath.Join(opts.ResultsDir, resultsLock), "results directory "+opts.ResultsDir, lockWait(opts))
	if err != nil {
		return nil, err
	}
	defer dirLock.Release()
	digest, err := journal.PlanDigest(p)
	if err != nil {
		return nil, fmt.Errorf("the plan's digest: %w", err)
	}
	digest += "-" + opts.Phase + "-" + strings.Join(opts.Kinds, ",")
	var jr *journal.Journal
	if opts.Resume {
		if jr, err = journal.Resume(opts.ResultsDir, digest, p.Inputs); err != nil {
			return nil, err
		}
	}
	dir, err := results.Open(opts.ResultsDir)
	if err != nil {
		jr.Close()
		return nil, fmt.Errorf("opening results directory: %w", err)
	}
	parent := ctx
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r := &run{opts: opts, plan: p, dir: dir, out: &Outcome{}, stop: stop, interrupted: func() bool { return parent.Err() != nil },
		gates: threshold.NewGates(p.Thresholds), noise: noise.New(p.ServerCommands(opts.Registry))}
	if jr != nil {
		if err := r.resumedChecks(jr); err != nil {
			dir.Close()
			jr.Close()
			return nil, err
		}
	}
	r.sink = results.Tee(dir, console.New(opts.Log))
	r.mem = memuse.Start(func(row results.MemoryRow) { r.emit(row) })
	defer r.mem.Close()
	points, est := r.planned()
	if pr := opts.Progress; pr != nil {
		pr.SetTotal(est)
		r.sink = results.Tee(dir, console.New(opts.Log), pr)
		pr.Start()
		defer pr.Close()
	}
	if w := opts.Watch; w != nil {
		w.Planned(points, est)
		r.sink = results.Tee(r.sink, w)
	}
	env := append(host.Machine(), host.Tuning(opts.DataDir)...)
	env = append(env, opts.Env...)
	env = append(env, p.Env...)
	env = append(env, results.KV{Key: "phase", Value: opts.Phase})
	writeEnv := dir.WriteEnv
	if opts.Resume {
		// The interrupted run's env.txt stands; the resumed part adds its
		// own machine's facts after it.
		env = append([]results.KV{{Key: "resumed_at", Value: time.Now().UTC().Format(time.RFC3339)}}, env...)
		writeEnv = dir.WriteEnvLines
	}
	if err := writeEnv(env, r.sensitive); err != nil {
		dir.Close()
		jr.Close()
		return nil, fmt.Errorf("writing env.txt: %w", err)
	}
	if err := results.WriteFingerprints(opts.ResultsDir, plandesc.Describe(p).Fingerprints()); err != nil {
		r.fail("%v", err) // compare then cannot tell changed definitions apart
	}
	if jr == nil {
		if jr, err = journal.Start(opts.ResultsDir, digest, p.Inputs); err != nil {
			r.fail("%v", err)
		}
	}
	r.journal = jr
	defer jr.Close()
	if l := opts.Launcher; l != nil {
		l.OnRefused(func(e *worker.AuthError, n int64) {
			r.logTo("auth", "%s refused=%d %v\n", time.Now().UTC().Format(time.RFC3339), n, e)
		})
		defer func() {
			l.OnRefused(nil)
			if n := l.Refused(); n > 0 {
				r.logf("%d connection(s) to the workers' port refused: not the run's workers (logs/auth.log)", n)
			}
		}()
	}
	extOK := r.checkExtensions(ctx)
	for _, sp := range p.Scales {
		if !extOK {
			break
		}
		if err := ctx.Err(); err != nil {
			if !errors.Is(context.Cause(ctx), errResultsLost) {
				r.fail("run interrupted: %v", err)
			}
			break
		}
		r.scale(ctx, sp)
	}
	for _, l := range r.gates.Unmatched(r.measured) {
		r.emit(l)
	}
	if len(r.noiseRows) > 0 {
		if err := dir.WriteEnvLines(results.NoiseEnv(r.noiseRows), r.sensitive); err != nil {
			r.resultsLost(fmt.Errorf("writing env.txt: %w", err))
		}
	}
	r.mem.Close()
	counts, cerr := dir.Close()
	r.out.Checks = counts
	if err := writeReports(opts.ResultsDir); err != nil && cerr == nil {
		cerr = err
	}
	return r.out, cerr
}

// writeReports writes the reports of the closed results directory, and
// their memory after them in memory.csv.
func writeReports(dir string) error {
	var row results.MemoryRow
	m := memuse.Start(func(r results.MemoryRow) { row = r })
	m.Phase(results.MemoryAll, results.MemoryAll, results.PhaseReports)
	err := report.WriteAll(dir)
	m.Close()
	if err != nil {
		return fmt.Errorf("writing the reports: %w", err)
	}
	if err := results.AppendTo(dir, row); err != nil {
		return fmt.Errorf("writing the reports' memory: %w", err)
	}
	return nil
}

// cellDone records how a cell ended: its failure, and that it measured.
func (r *run) cellDone(ctx context.Context, c *cell, err error) {
	if err != nil && !errors.Is(context.Cause(ctx), errResultsLost) {
		r.fail("%s: %v", c.name(), err)
	}
	if c.measured {
		r.measured = append(r.measured, threshold.Cell{Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name})
	}
}

// paired runs the scale's cells side by side (sampling order "paired"):
// every store opened first, then each group of interleaved scenarios rep
// by rep across all the cells (rep 1 of a point on each backend, then
// the next point, ...), so that backends compared within one run share
// its drift and its neighbours; a scenario that does not interleave runs
// on each backend in turn, where it is declared. Cells whose scenarios
// differ (a skip on one backend) run one after the other instead.
func (r *run) paired(ctx context.Context, sp *plan.ScalePlan, pcs []*plan.Cell, truth *plan.Truth) {
	var cells []*cell
	defer func() {
		for _, c := range cells {
			c.closeCell()
		}
	}()
	for _, pc := range pcs {
		if ctx.Err() != nil {
			return
		}
		c := &cell{run: r, pc: pc, truth: truth}
		closeCell, ready, err := c.open(ctx)
		c.closeCell = closeCell
		if err != nil || !ready {
			closeCell()
			r.cellDone(ctx, c, err)
			continue
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return
	}
	groups := make([][][]*plan.Scenario, len(cells))
	for i, c := range cells {
		groups[i] = c.groups()
	}
	if !sameGroups(groups) {
		r.logf("scale %s: the backends run different scenarios: the paired order runs them one backend after the other", sp.Name)
		for i, c := range cells {
			r.cellDone(ctx, c, c.runGroups(ctx, groups[i]))
		}
		return
	}
	failed := make([]error, len(cells))
	for gi := range groups[0] {
		if ctx.Err() != nil {
			break
		}
		var parts []cellGroup
		for i, c := range cells {
			if failed[i] == nil {
				parts = append(parts, cellGroup{c: c, g: groups[i][gi]})
			}
		}
		if len(parts) == 0 {
			break
		}
		if g := parts[0].g; len(g) > 1 || interleaved(g[0]) {
			for _, p := range parts {
				p.c.measured = r.opts.Phase != PhaseLoad
			}
			if r.opts.Phase != PhaseLoad {
				interleaveCells(ctx, parts)
				for _, p := range parts {
					p.c.advanceTruth()
				}
			}
		} else {
			for _, p := range parts {
				p.c.measureGroup(ctx, p.g, p.c.runGroup)
			}
		}
		for i, c := range cells {
			if failed[i] == nil {
				failed[i] = c.afterGroup(ctx, groups[i][gi])
			}
		}
	}
	for i, c := range cells {
		r.cellDone(ctx, c, failed[i])
	}
}

// sameGroups reports whether every cell's groups hold the same scenarios.
func sameGroups(groups [][][]*plan.Scenario) bool {
	for _, gs := range groups[1:] {
		if len(gs) != len(groups[0]) {
			return false
		}
		for j, g := range gs {
			if len(g) != len(groups[0][j]) {
				return false
			}
			for k, sc := range g {
				if sc.Name != groups[0][j][k].Name {
					return false
				}
			}
		}
	}
	return true
}

// selected reports whether a scenario runs in this run's phase.
func (r *run) selected(sc *plan.Scenario) bool {
	return len(r.opts.Kinds) == 0 || slices.Contains(r.opts.Kinds, sc.Kind)
}

// begin and end mark a task for the live progress.
func (r *run) begin(name, unit string, est time.Duration, total int64, count progress.Counter) {
	if r.opts.Progress != nil {
		r.opts.Progress.Begin(name, unit, est, total, count)
	}
	if w := r.opts.Watch; w != nil {
		w.Begin(name, est, count)
	}
}

// pointDone counts a point finished for the watcher.
func (r *run) pointDone() {
	if w := r.opts.Watch; w != nil {
		w.PointDone()
	}
}

// watch gives the running task a live view of its calls and returns ctx
// carrying it, for the point's measure to count into; without a progress
// ctx is returned as it is and the point counts nothing extra.
func (r *run) watch(ctx context.Context) context.Context {
	if r.opts.Progress == nil {
		return ctx
	}
	l := measure.NewLive()
	r.opts.Progress.Watch(l)
	return measure.WithLive(ctx, l)
}

// recorded notes a journal record; a record that cannot be written
// leaves the run resumable only up to the record before, which is said,
// not fatal.
func (r *run) recorded(err error) {
	if err != nil {
		r.logf("%v: a -resume of this run would start again from the last point recorded before", err)
	}
}

// planned is how many points this run's phase runs and the plan's
// estimate of it.
func (r *run) planned() (points int, est time.Duration) {
	for _, sp := range r.plan.Scales {
		for _, c := range sp.Cells {
			if r.opts.Phase != PhaseBench && r.opts.Phase != PhaseSustained {
				est += c.LoadEstimate().Best
			}
			if r.opts.Phase == PhaseLoad {
				continue
			}
			for _, sc := range c.Scenarios {
				if r.selected(sc) {
					points += len(sc.Points)
					est += sc.Estimate().Best
				}
			}
		}
	}
	return points, est
}

// liveTasks shows another package's tasks (a load's) in the run's live
// views.
type liveTasks struct{ r *run }

func (l liveTasks) Begin(name, unit string, est time.Duration, total int64, count progress.Counter) {
	l.r.begin(name, unit, est, total, count)
}
func (l liveTasks) End()                   { l.r.end() }
func (l liveTasks) Skip(est time.Duration) { l.r.skip(est) }

// skip counts an estimated task as done.
func (r *run) skip(est time.Duration) {
	if r.opts.Progress != nil {
		r.opts.Progress.Skip(est)
	}
	if w := r.opts.Watch; w != nil {
		w.Skip(est)
	}
}

func (r *run) end() {
	if r.opts.Progress != nil {
		r.opts.Progress.End()
	}
	if w := r.opts.Watch; w != nil {
		w.End()
	}
}

func (r *run) sensitive(key string) bool {
	if r.plan.Sensitive[key] {
		return true
	}
	return r.opts.Sensitive != nil && r.opts.Sensitive(key)
}

// emit is the run's one way out: every row goes to the results directory
// and the console through the sink.
func (r *run) emit(rec results.Record) {
	if err := r.sink.Emit(rec); err != nil {
		r.resultsLost(err)
	}
	if t, ok := rec.(results.Timing); ok {
		r.out.Rows = append(r.out.Rows, results.Row(t))
	}
	r.tap.Observe(rec)
	for _, l := range r.gates.Observe(rec) {
		r.emit(l)
	}
}

// errResultsLost is the cause of a run stopped by resultsLost.
var errResultsLost = errors.New("results can no longer be written")

// resultsLost stops the run on a failed write into the results directory:
// the rows written before stay, the run measures no more.
func (r *run) resultsLost(err error) {
	what := "writing results"
	if host.DiskFull(err) {
		what = "writing results: the disk of " + r.opts.ResultsDir + " is full or its file size limit reached"
	}
	r.fail("%s: %v; stopping the run (the rows written before are kept in %s)", what, err, r.opts.ResultsDir)
	r.stop(errResultsLost)
}

func (r *run) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.out.Failures = append(r.out.Failures, msg)
	if r.interrupted != nil && r.interrupted() {
		// Every point in flight ends with the interrupt's error: one plain
		// line says so, errors.log keeps each.
		if !r.out.Interrupted {
			r.out.Interrupted = true
			fmt.Fprintf(r.opts.Log, "interrupted: stopping; the rows measured so far are kept in %s\n", r.opts.ResultsDir)
		}
	} else {
		fmt.Fprintf(r.opts.Log, "FAILED: %s\n", msg)
	}
	r.logTo("errors", "%s %s\n", time.Now().UTC().Format(time.RFC3339), msg)
}

// logTo appends a line to logs/<name>.log.
func (r *run) logTo(name, format string, args ...any) {
	if w, err := r.dir.Log(name); err == nil {
		fmt.Fprintf(w, format, args...)
		w.Close()
	}
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.opts.Log, format+"\n", args...)
}

// scale computes the truth of one scale and runs its cells.
func (r *run) scale(ctx context.Context, sp *plan.ScalePlan) {
	start := time.Now()
	cells := r.admit(sp)
	if len(cells) == 0 {
		return
	}
	if sp.Estimated {
		r.logf("scale %s: counting about %s datoms exactly", sp.Name, plan.Thousands(sp.Stats.Datoms))
		st, err := sp.Gen.Stats(ctx, r.opts.Workers)
		if err != nil {
			r.fail("scale %s: counting datoms: %v", sp.Name, err)
			return
		}
		sp.Stats, sp.Estimated = st, false
	}
	r.mem.Phase(sp.Name, results.MemoryAll, results.PhaseTruth)
	r.logf("scale %s: computing the truth of %s datoms", sp.Name, plan.Thousands(sp.Stats.Datoms))
	r.begin("scale "+sp.Name+": computing truth", "datoms", 0, 0, nil)
	computed, err := truth.Compute(ctx, sp.Gen, r.opts.Workers)
	r.end()
	if err != nil {
		r.fail("scale %s: computing truth: %v", sp.Name, err)
		return
	}
	if err := results.WriteTruth(r.opts.ResultsDir, sp.Name, computed); err != nil {
		r.resultsLost(fmt.Errorf("scale %s: %w", sp.Name, err))
		return
	}
	truth, err := plan.NewTruth(computed)
	if err != nil {
		r.fail("scale %s: %v", sp.Name, err)
		return
	}
	r.logf("scale %s: %s datoms; truth computed in %s", sp.Name, plan.Thousands(sp.Stats.Datoms), time.Since(start).Round(time.Millisecond))
	r.cross = crosscheck.New(sp.Name, r.opts.ResultsDir)
	defer r.cross.Close()
	if r.plan.Sampling.Paired && len(cells) > 1 {
		r.paired(ctx, sp, cells, truth)
	} else {
		for _, pc := range cells {
			if ctx.Err() != nil {
				return
			}
			c := &cell{run: r, pc: pc, truth: truth}
			r.cellDone(ctx, c, c.execute(ctx))
		}
	}
	r.mem.Phase(sp.Name, results.MemoryAll, results.PhaseCrossCheck)
	for _, l := range r.cross.Lines() {
		r.emit(l)
	}
	r.mem.End()
}

// resultsLock is the results directory's lock file.
const resultsLock = ".lock"

// lockWait is the run's waiting policy: it says who it waits for.
func lockWait(opts Options) storelock.Wait {
	return storelock.Wait{Timeout: opts.LockWait, Waiting: func(what string, h storelock.Holder) {
		fmt.Fprintf(opts.Log, "waiting for %s: in use by %s\n", what, h)
	}}
}
