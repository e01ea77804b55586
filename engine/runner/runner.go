// Package runner applies a plan: for each (scale, backend) cell it loads
// the dataset into a store the run created (or reuses one an earlier run
// loaded), measures every scenario at every client count, checks answers
// against the generator's truth, and appends each result to the results
// directory as soon as it is measured. It knows no workload: every query,
// scenario and check comes from the spec.
package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Phases of a run.
const (
	PhaseAll   = "all"   // load where needed, then measure and check
	PhaseLoad  = "load"  // load and check only
	PhaseBench = "bench" // reuse loaded stores; never load
)

// Options configure a run.
type Options struct {
	Registry   *drivers.Registry
	ResultsDir string // the run's directory (created; appended to if it exists)
	DataDir    string // where drivers put file databases by default
	Phase      string
	Reload     bool // drop and reload stores this tool created even when already loaded
	Workers    int  // parallelism of dataset counting and truth
	Log        io.Writer
	// Env are extra env.txt lines (command line, spec hash, variables).
	Env []results.KV
	// Sensitive reports env keys whose values must be redacted.
	Sensitive func(key string) bool
}

// Outcome summarises a finished run.
type Outcome struct {
	Checks results.CheckCounts
	// Failures are cells or scenarios that could not run, with the reason.
	Failures []string
	Rows     []results.Row // the timings rows written, for the console table
}

// Failed reports whether the run must exit non-zero.
func (o *Outcome) Failed() bool { return o.Checks.Fail > 0 || len(o.Failures) > 0 }

type run struct {
	opts Options
	plan *plan.Plan
	dir  *results.Dir
	out  *Outcome
}

// Run applies p. The results directory is complete (summary.md included)
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
	dir, err := results.Open(opts.ResultsDir)
	if err != nil {
		return nil, fmt.Errorf("opening results directory: %w", err)
	}
	r := &run{opts: opts, plan: p, dir: dir, out: &Outcome{}}
	env := append(machineEnv(), opts.Env...)
	env = append(env, r.specEnv()...)
	if err := dir.WriteEnv(env, opts.Sensitive); err != nil {
		dir.Close()
		return nil, fmt.Errorf("writing env.txt: %w", err)
	}
	for _, sp := range p.Scales {
		if err := ctx.Err(); err != nil {
			r.fail("run interrupted: %v", err)
			break
		}
		r.scale(ctx, sp)
	}
	counts, cerr := dir.Close()
	r.out.Checks = counts
	if err := results.WriteSummary(opts.ResultsDir); err != nil && cerr == nil {
		cerr = fmt.Errorf("writing summary.md: %w", err)
	}
	return r.out, cerr
}

func (r *run) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.out.Failures = append(r.out.Failures, msg)
	fmt.Fprintf(r.opts.Log, "FAILED: %s\n", msg)
	if w, err := r.dir.Log("errors"); err == nil {
		fmt.Fprintf(w, "%s %s\n", time.Now().UTC().Format(time.RFC3339), msg)
		w.Close()
	}
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.opts.Log, format+"\n", args...)
}

// scale computes the truth of one scale and runs its cells.
func (r *run) scale(ctx context.Context, sp *plan.ScalePlan) {
	start := time.Now()
	truth, err := datagen.ComputeTruth(ctx, sp.Gen, r.opts.Workers)
	if err != nil {
		r.fail("scale %s: computing truth: %v", sp.Scale.Name, err)
		return
	}
	raw, err := json.Marshal(truth.Values)
	if err != nil {
		r.fail("scale %s: encoding truth: %v", sp.Scale.Name, err)
		return
	}
	if err := writeFile(filepath.Join(r.opts.ResultsDir, "truth-"+sp.Scale.Name+".json"), truth); err != nil {
		r.fail("scale %s: %v", sp.Scale.Name, err)
	}
	ty, err := ctyjson.ImpliedType(raw)
	if err != nil {
		r.fail("scale %s: truth as HCL values: %v", sp.Scale.Name, err)
		return
	}
	tv, err := ctyjson.Unmarshal(raw, ty)
	if err != nil {
		r.fail("scale %s: truth as HCL values: %v", sp.Scale.Name, err)
		return
	}
	r.logf("scale %s: %s datoms; truth computed in %s", sp.Scale.Name, plan.Thousands(sp.Stats.Datoms), time.Since(start).Round(time.Millisecond))
	for _, cp := range sp.Backends {
		if ctx.Err() != nil {
			return
		}
		c := &cell{run: r, sp: sp, cp: cp, truth: tv}
		if err := c.execute(ctx); err != nil {
			r.fail("%s/%s: %v", sp.Scale.Name, cp.Cell.Backend.Name, err)
		}
	}
}

func writeFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return nil
}
