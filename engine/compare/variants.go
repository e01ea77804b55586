package compare

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	tmp, err := os.MkdirTemp("", "mentat-spec-variants-")
	if err != nil {
		return Verdict{}, fmt.Errorf("compare variants: %w", err)
	}
	defer os.RemoveAll(tmp)
	label := a + " vs " + b
	oldDir, newDir := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, v := range []struct{ backend, out string }{{a, oldDir}, {b, newDir}} {
		if err := writeVariant(dir, v.backend, label, v.out); err != nil {
			return Verdict{}, err
		}
	}
	opt.variants = true
	opt.Comparable, opt.LoadComparable = nil, nil
	v, err := Dirs(oldDir, newDir, opt)
	v.Old, v.New = dir+" ["+a+"]", dir+" ["+b+"]"
	v.Variants = true
	if err != nil {
		return v, err
	}
	raw, err := results.ReadRaw(dir)
	if err != nil {
		return v, fmt.Errorf("compare variants: %w", err)
	}
	orders := repOrders(raw, a, b, label)
	for i := range v.Verdicts {
		if o, ok := orders[v.Verdicts[i].key]; ok {
			v.Verdicts[i].Order = &o
		}
	}
	return v, nil
}

// writeVariant writes backend's rows of the run in src as a results
// directory of its own in dst, the backend named label on both sides so
// that points match.
func writeVariant(src, backend, label, dst string) error {
	raw, err := results.ReadRaw(src)
	if err != nil {
		return fmt.Errorf("compare variants: %w", err)
	}
	timings, err := results.ReadTimings(src)
	if err != nil {
		return fmt.Errorf("compare variants: %w", err)
	}
	found := false
	for _, r := range timings {
		found = found || r.Backend == backend
	}
	if !found {
		return fmt.Errorf("compare variants: the run in %s measured no backend %q", src, backend)
	}
	d, err := results.Open(dst)
	if err != nil {
		return fmt.Errorf("compare variants: %w", err)
	}
	var errs []error
	emit := func(rec results.Record) {
		if err := d.Emit(rec); err != nil {
			errs = append(errs, err)
		}
	}
	for _, r := range raw {
		if r.Backend == backend {
			r.Backend = label
			emit(results.Raw(r))
		}
	}
	for _, r := range timings {
		if r.Backend == backend {
			r.Backend = label
			emit(results.Timing(r))
		}
	}
	noise, err := results.ReadNoise(src)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, n := range noise {
		if n.Backend == backend {
			n.Backend = label
			emit(n)
		}
	}
	caps, err := results.ReadCapacity(src)
	if err != nil {
		errs = append(errs, err)
	}
	for _, c := range caps {
		if c.Backend == backend {
			c.Backend = label
			emit(c)
		}
	}
	env, err := results.ReadEnv(src)
	if err != nil {
		errs = append(errs, err)
	}
	var kvs []results.KV
	own, other := "backend."+backend+".", "backend."
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv.Key, own):
			kvs = append(kvs, results.KV{Key: "backend." + label + "." + strings.TrimPrefix(kv.Key, own), Value: kv.Value})
		case strings.HasPrefix(kv.Key, other):
		default:
			kvs = append(kvs, kv)
		}
	}
	if err := d.WriteEnv(kvs, nil); err != nil {
		errs = append(errs, err)
	}
	if _, err := d.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("compare variants: %w", err)
	}
	return nil
}
