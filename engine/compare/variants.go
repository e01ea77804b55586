package compare

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Variants compares two backends of one run as OLD (a) and NEW (b): the
// same points (scenario, scale, clients, op) measured in one invocation,
// with the same statistics as two runs. Where their reps alternated
// (the sampling order "paired"), the machine's drift and its neighbours
// hit both alike, which two runs at two moments cannot promise; where
// they did not (a scenario that writes runs its reps back to back on each
// backend), the point is two samples from two moments, and the verdict
// says so point by point, from the order the run's raw.csv recorded.
// What the two backends' env.txt lines say differently (their settings,
// drivers) is listed as what the variants change, never as a reason to
// refuse; everything else (the machine's noise, -force) is as between
// two runs.
func Variants(dir, a, b string, opt Options) (Verdict, error) {
	if a == b {
		return Verdict{}, fmt.Errorf("compare variants: %q against itself", a)
	}
	run, err := results.Load(dir)
	if err != nil {
		return Verdict{}, fmt.Errorf("compare variants: %w", err)
	}
	return VariantsOf(run, a, b, opt)
}

// VariantsOf is Variants of a loaded run: it reads nothing but run.
func VariantsOf(run *results.Run, a, b string, opt Options) (Verdict, error) {
	if a == b {
		return Verdict{}, fmt.Errorf("compare variants: %q against itself", a)
	}
	// Variants are decided from the reps: a run without raw.csv (or
	// timings.csv) has none to split.
	for _, name := range []string{results.RawFile, results.TimingsFile} {
		if !run.Has(name) {
			return Verdict{}, fmt.Errorf("compare variants: results: %w", &fs.PathError{Op: "open", Path: filepath.Join(run.Dir, name), Err: syscall.ENOENT})
		}
	}
	label := a + " vs " + b
	var sides [2]*results.Run
	for i, backend := range []string{a, b} {
		v, err := variant(run, backend, label)
		if err != nil {
			return Verdict{}, err
		}
		sides[i] = v
	}
	opt.variants, opt.variantOf = true, [2]string{a, b}
	opt.Comparable, opt.LoadComparable = nil, nil
	v, err := Runs(sides[0], sides[1], opt)
	v.Old, v.New = run.Dir+" ["+a+"]", run.Dir+" ["+b+"]"
	v.Variants = true
	if err != nil {
		return v, err
	}
	orders := repOrders(run.Raw, a, b, label)
	for i := range v.Verdicts {
		if o, ok := orders[v.Verdicts[i].key]; ok {
			v.Verdicts[i].Order = &o
		}
	}
	return v, nil
}

// variant is backend's part of run as a run of its own, the backend named
// label on both sides so that points match: its raw, timings and noise
// rows, the kinds' own rows (Output.Variant), and env.txt without the
// other backends' lines.
func variant(run *results.Run, backend, label string) (*results.Run, error) {
	if !slices.ContainsFunc(run.Timings, func(r results.Row) bool { return r.Backend == backend }) {
		return nil, fmt.Errorf("compare variants: the run in %s measured no backend %q", run.Dir, backend)
	}
	v := &results.Run{Dir: run.Dir, Name: run.Name, Files: map[string]bool{results.EnvFile: true}}
	// A file of the variant is present when it has a row, as it would be
	// written out.
	present := func(name string, n int) {
		if n > 0 {
			v.Files[name] = true
		}
	}
	v.Raw = ofBackend(run.Raw, backend, label, func(r *results.Row) *string { return &r.Backend })
	present(results.RawFile, len(v.Raw))
	v.Timings = ofBackend(run.Timings, backend, label, func(r *results.Row) *string { return &r.Backend })
	present(results.TimingsFile, len(v.Timings))
	v.Noise = ofBackend(run.Noise, backend, label, func(r *results.NoiseRow) *string { return &r.Backend })
	present(results.NoiseFile, len(v.Noise))
	v.Outputs = map[string]any{}
	for _, o := range results.Outputs() {
		if x, ok := run.Outputs[o.Name]; ok && o.Variant != nil {
			v.Outputs[o.Name] = o.Variant(x, backend, label)
		}
	}
	own, other := "backend."+backend+".", "backend."
	for _, kv := range run.Env {
		switch {
		case strings.HasPrefix(kv.Key, own):
			v.Env = append(v.Env, results.KV{Key: "backend." + label + "." + strings.TrimPrefix(kv.Key, own), Value: kv.Value})
		case strings.HasPrefix(kv.Key, other):
		default:
			v.Env = append(v.Env, kv)
		}
	}
	return v, nil
}

// ofBackend returns the rows of backend, renamed label.
func ofBackend[T any](rows []T, backend, label string, name func(*T) *string) []T {
	var out []T
	for _, r := range rows {
		if n := name(&r); *n == backend {
			*n = label
			out = append(out, r)
		}
	}
	return out
}
