package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"

	"github.com/mentat-spec/mentat-spec/datagen/export"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("validate", "PATH... [-json]", "Checks a spec (files or directories) and prints every error at once, each with its file:line:col. With -json, prints {valid, error_count, warning_count, diagnostics: [{severity, summary, detail, file, line, column, end_line, end_column}]} on stdout instead.", stderr)
	sf.register(fs)
	asJSON := fs.Bool("json", false, "print the diagnostics as JSON on stdout")
	each := fs.Bool("each", false, "check each .hcl file named, or directly in a directory named, as a spec of its own (a directory is otherwise one spec: its files are read together)")
	paths, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fs.Usage()
		return exitUsage
	}
	if *each {
		return validateEach(paths, &sf, *asJSON, stdout, stderr)
	}
	if *asJSON {
		spec, diags := checkSpec(paths, &sf)
		res := jsonResult(spec, diags)
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "mentat-spec validate: %v\n", err)
			return exitUnfinished
		}
		if !res.Valid {
			return exitUsage
		}
		return exitOK
	}
	spec, diags := checkSpec(paths, &sf)
	printDiags(stderr, spec, diags)
	if diags.HasErrors() {
		if separateSpecs(paths, diags) {
			fmt.Fprintf(stderr, "\nA directory is one spec: its .hcl files are read together, and these declare the same blocks. "+
				"If they are separate specs, check each: mentat-spec validate -each %s\n", strings.Join(paths, " "))
		}
		return exitUsage
	}
	fmt.Fprintln(stdout, "The spec is valid.")
	return exitOK
}

// separateSpecs says whether diags look like a directory of separate
// specs read as one: a block declared again in another file.
func separateSpecs(paths []string, diags hcl.Diagnostics) bool {
	dir := false
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dir = true
		}
	}
	if !dir {
		return false
	}
	for _, d := range diags {
		if strings.HasPrefix(d.Summary, "Duplicate ") {
			return true
		}
	}
	return false
}

// validateEach is validate -each: every .hcl file of paths (directories:
// the files directly in them) checked as a spec of its own, with a line
// each; exit 2 when any is invalid.
func validateEach(paths []string, sf *specFlags, asJSON bool, stdout, stderr io.Writer) int {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec validate: %v\n", err)
			return exitUsage
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.hcl"))
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec validate: %v\n", err)
			return exitUsage
		}
		files = append(files, matches...)
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "mentat-spec validate: no .hcl files in %s\n", strings.Join(paths, " "))
		return exitUsage
	}
	code := exitOK
	results := map[string]JSONResult{}
	for _, f := range files {
		spec, diags := checkSpec([]string{f}, sf)
		if diags.HasErrors() {
			code = exitUsage
		}
		if asJSON {
			results[f] = jsonResult(spec, diags)
			continue
		}
		printDiags(stderr, spec, diags)
		if diags.HasErrors() {
			fmt.Fprintf(stdout, "%s: invalid\n", f)
		} else {
			fmt.Fprintf(stdout, "%s: valid\n", f)
		}
	}
	if asJSON {
		if err := writeJSON(stdout, results); err != nil {
			fmt.Fprintf(stderr, "mentat-spec validate: %v\n", err)
			return exitUnfinished
		}
	}
	return code
}

func runPlan(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	var df diffFlags
	fs := newFlagSet("plan", "PATH... [-var name=value] [-json] [-diff OLD [-json|-markdown] [-detailed-exitcode]]", "Prints the expanded matrix in run order: each (scale, backend) with its dataset size, then each scenario at each client count, with estimated durations. Touches no database. A selected backend that cannot be configured (PostgreSQL without a DSN) is a warning here and an error at apply. With -json, prints the diagnostics as validate -json does and the plan as data: cells, their points with estimates, scenarios that are off (format 2.0, docs/plan-json.md). With -estimate-from RUN, points and loads that ran in the results directory RUN (an earlier run of the spec) are estimated from what they took there.\n\nWith -diff OLD (another spec path, or a git revision of the same paths) it prints instead what changes from OLD to PATH, per cell and scenario, with the SQL as unified diffs and the estimated duration before and after. Exit 0 whether or not the plans differ (3 when they differ with -detailed-exitcode), 2 on a spec error in either side.", stderr)
	sf.register(fs)
	df.register(fs) // -json serves both forms
	estimateFrom := fs.String("estimate-from", "", "estimate the points and loads that ran in this results directory (an earlier run of the spec) from what they took there")
	paths, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		fs.Usage()
		return exitUsage
	}
	if df.old != "" {
		return runPlanDiff(paths, &sf, &df, stdout, stderr)
	}
	if df.json {
		return planJSON(paths, &sf, *estimateFrom, stdout, stderr)
	}
	spec, ok := loadSpec(paths, &sf, stderr)
	if !ok {
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	p, diags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
	if !diags.HasErrors() {
		diags = append(diags, unconfiguredWarnings(spec, p)...)
	}
	printDiags(stderr, spec, diags)
	if diags.HasErrors() {
		return exitUsage
	}
	if *estimateFrom != "" {
		if err := estimateFromRun(p, *estimateFrom, stderr); err != nil {
			fmt.Fprintf(stderr, "mentat-spec plan: %v\n", err)
			return exitUsage
		}
	}
	if err := p.Render(stdout); err != nil {
		fmt.Fprintf(stderr, "mentat-spec plan: %v\n", err)
		return exitUnfinished
	}
	describeBackends(ctx, p, stdout)
	load, known := host.LoadAverage()
	busyNote(stderr, load, known, runtime.NumCPU())
	return exitOK
}

// busyNote says, on a machine busier than its CPUs, that the estimates
// are a quiet machine's: under load adaptive reps stop at max_s more
// often, and runs took up to 2.5x the best estimate (BENCHMARKS.md).
func busyNote(w io.Writer, load float64, known bool, cpus int) {
	if known && load > float64(cpus) {
		fmt.Fprintf(w, "note: the machine is busy (load average %.1f on %d CPUs); the estimates are a quiet machine's: under load, expect the range's upper bound or more\n", load, cpus)
	}
}

func runGen(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("gen", "PATH... -scale NAME -o DIR [-shards N] [-edn]",
		"Writes one scale's dataset to DIR: schema.csv, tx.csv, datoms-<class>-<shard>.csv (e,a,v,tx,added), optional EDN transactions, and truth.json. The output is byte-identical for the same seed whatever the shard count.", stderr)
	sf.register(fs)
	scale := fs.String("scale", "", "the scale to generate (required)")
	out := fs.String("o", "", "output directory (required; created if missing)")
	shards := fs.Int("shards", 1, "datom files per storage class, generated in parallel")
	edn := fs.Bool("edn", false, "also write EDN transactions (tx-<shard>.edn)")
	paths, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 || *scale == "" || *out == "" {
		fs.Usage()
		return exitUsage
	}
	spec, ok := loadSpec(paths, &sf, stderr)
	if !ok {
		return exitUsage
	}
	sc := spec.Scale(*scale)
	if sc == nil {
		fmt.Fprintf(stderr, "mentat-spec gen: the spec declares no scale %q\n", *scale)
		return exitUsage
	}
	gen, diags := resolve.Dataset(spec.SelectedDataset(), spec.ScaleContext(sc))
	printDiags(stderr, spec, diags)
	if diags.HasErrors() {
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	if err := export.Write(ctx, gen, *out, export.Options{Shards: *shards, EDN: *edn}); err != nil {
		fmt.Fprintf(stderr, "mentat-spec gen: %v\n", err)
		return exitUnfinished
	}
	st, err := gen.Stats(ctx, workers())
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec gen: %v\n", err)
		return exitUnfinished
	}
	fmt.Fprintf(stdout, "Wrote dataset %q at scale %s to %s: %s datoms in %s transactions, truth in truth.json.\n",
		gen.Name, sc.Name, *out, plan.Thousands(st.Datoms), plan.Thousands(st.Txs))
	return exitOK
}
