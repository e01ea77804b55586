package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// cancelAt is a run's log that cancels the run when the n-th line holding
// marker is written: an interrupt at a chosen moment.
type cancelAt struct {
	mu     sync.Mutex
	marker string
	n      int
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelAt) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(b)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, c.marker) {
			if c.n--; c.n == 0 {
				c.cancel()
			}
		}
	}
	return len(b), nil
}

func buildPlan(t *testing.T, path string) *plan.Plan {
	t.Helper()
	spec, diags := config.Load([]string{path}, config.Options{})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	return p
}

// timingKeys lists the (scenario, backend, scale, clients, op) of a
// timings.csv, sorted; a missing file has none.
func timingKeys(t *testing.T, path string) []string {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil
	}
	rows := readCSV(t, path)
	var out []string
	for _, r := range rows[1:] {
		out = append(out, strings.Join([]string{r[0], r[1], r[2], r[4], r[5]}, "|"))
	}
	sort.Strings(out)
	return out
}

// repKeys lists the (scenario, backend, scale, clients, op, rep) of a
// raw.csv or precision.csv, sorted.
func repKeys(t *testing.T, path string) []string {
	t.Helper()
	rows := readCSV(t, path)
	var idx []int
	for _, c := range []string{"scenario", "backend", "scale", "clients", "op", "rep"} {
		i := slices.Index(rows[0], c)
		if i < 0 {
			t.Fatalf("%s has no column %s", path, c)
		}
		idx = append(idx, i)
	}
	var out []string
	for _, r := range rows[1:] {
		var k []string
		for _, i := range idx {
			k = append(k, r[i])
		}
		out = append(out, strings.Join(k, "|"))
	}
	sort.Strings(out)
	return out
}

// TestResumeMeasuresEveryPointOnce interrupts apply during the load,
// between points (their reps interleaved: other points' first reps are
// on disk when a point is whole) and during the checks, and resumes
// each: every point and every (point, rep) is measured exactly once over
// the two runs, no row the interrupted run wrote is lost (it is in the
// results or under interrupted/), and the resumed run's checks, writes
// included, pass.
func TestResumeMeasuresEveryPointOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec, data := quickstartText(t, true)
	p := buildPlan(t, spec)
	full := filepath.Join(t.TempDir(), "full")
	o, err := runner.Run(context.Background(), p, runner.Options{Registry: drivers.Default, ResultsDir: full, DataDir: data, Workers: 2, Reload: true})
	if err != nil || o.Failed() {
		t.Fatalf("uninterrupted run: %v %v", err, o.Failures)
	}
	want := timingKeys(t, filepath.Join(full, "timings.csv"))
	for _, tc := range []struct {
		name, marker string
		n            int
	}{
		{"during the load", "loading", 1},
		{"between points", " clients ", 3},
		{"during the checks", "PASS ", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := filepath.Join(t.TempDir(), "results")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := &cancelAt{marker: tc.marker, n: tc.n, cancel: cancel}
			o, _ := runner.Run(ctx, buildPlan(t, spec), runner.Options{Registry: drivers.Default, ResultsDir: res, DataDir: data, Workers: 2, Reload: true, Log: log})
			if !o.Interrupted {
				t.Fatalf("the run was not interrupted:\n%s", log.buf.String())
			}
			before := timingKeys(t, filepath.Join(res, "timings.csv"))

			o, err := runner.Run(context.Background(), buildPlan(t, spec), runner.Options{Registry: drivers.Default, ResultsDir: res, DataDir: data, Workers: 2, Resume: true})
			if err != nil || o.Failed() || o.Checks.Pass == 0 {
				t.Fatalf("resumed run: %v, failures %v, checks %+v", err, o.Failures, o.Checks)
			}
			got := timingKeys(t, filepath.Join(res, "timings.csv"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("timing rows after the resume:\n%s\nwant each point once:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, f := range []string{"raw.csv", "precision.csv"} {
				got, want := repKeys(t, filepath.Join(res, f)), repKeys(t, filepath.Join(full, f))
				if !slices.Equal(got, want) {
					t.Errorf("%s after the resume:\n%s\nwant each (point, rep) once:\n%s", f, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			kept := map[string]int{}
			for _, k := range append(got, timingKeys(t, filepath.Join(res, "interrupted", "timings.csv"))...) {
				kept[k]++
			}
			for _, k := range before {
				if kept[k] == 0 {
					t.Errorf("row %s of the interrupted run is lost", k)
				}
				kept[k]--
			}
			checks, err := os.ReadFile(filepath.Join(res, "checks.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(checks), "TOTAL "); n != 1 || strings.Contains(string(checks), "FAIL ") {
				t.Errorf("checks.txt with %d TOTAL lines or a FAIL:\n%s", n, checks)
			}
		})
	}
	// A resume of another plan, or of a directory no run journalled, is
	// refused.
	if _, err := runner.Run(context.Background(), p, runner.Options{Registry: drivers.Default, ResultsDir: t.TempDir(), DataDir: data, Resume: true}); err == nil ||
		!strings.Contains(err.Error(), "no record of an interrupted run") {
		t.Errorf("resume of an empty directory: %v", err)
	}
	other, _ := quickstartText(t, false)
	if _, err := runner.Run(context.Background(), buildPlan(t, other), runner.Options{Registry: drivers.Default, ResultsDir: full, DataDir: data, Resume: true}); err == nil ||
		!strings.Contains(err.Error(), "is not the one of the run") {
		t.Errorf("resume with another plan: %v", err)
	}
}
