package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/runner"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

func runWorker(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("worker", "[-connect HOST:PORT]",
		"Runs the clients of one point for a coordinator (a run of apply): the coordinator sends the spec, the cell, the point and this worker's share of the clients; the worker opens them against the store the coordinator loaded, waits at its barrier, measures and returns its histograms. Speaks docs/worker-protocol.md on stdin and stdout, or over TCP with -connect. Not meant to be started by hand.", stderr)
	connect := fs.String("connect", "", "dial the coordinator at HOST:PORT instead of using stdin and stdout")
	loop := fs.Bool("loop", false, "with -connect: after each point dial again for the next one, until the coordinator stops listening (workers started apart from the run, e.g. a Kubernetes Job)")
	wait := fs.Duration("wait", time.Minute, "with -loop: how long to retry the first connection while the coordinator starts")
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fs.Usage()
		return exitUsage
	}
	// A worker runs only clients: drivers may give them the whole process
	// (PostgreSQL's raw sessions then keep no spare P).
	drivers.SetClientProcess(true)
	ctx, cancel := signalContext()
	defer cancel()
	if *loop {
		if *connect == "" {
			fmt.Fprintln(stderr, "mentat-spec worker: -loop needs -connect")
			return exitUsage
		}
		return workerLoop(ctx, *connect, *wait, stderr)
	}
	conn := worker.NewConn(os.Stdin, stdout, nil)
	if *connect != "" {
		c, err := worker.Dial(ctx, *connect)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
			return exitUnfinished
		}
		conn = c
	}
	defer conn.Close()
	if err := worker.Serve(ctx, conn, openAssigned); err != nil {
		fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
		return exitUnfinished
	}
	return exitOK
}

// workerLoop serves one point per connection until the coordinator is
// gone. It fails only when the first connection cannot be made in wait.
func workerLoop(ctx context.Context, addr string, wait time.Duration, stderr io.Writer) int {
	deadline := time.Now().Add(wait)
	served := 0
	for ctx.Err() == nil {
		conn, err := worker.Dial(ctx, addr)
		if err != nil {
			if served == 0 && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			if served == 0 {
				fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
				return exitUnfinished
			}
			return exitOK // the run is over
		}
		served++
		err = worker.Serve(ctx, conn, openAssigned)
		conn.Close()
		if errors.Is(err, worker.ErrNotAssigned) {
			return exitOK // waiting for a point when the run ended
		}
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
		}
	}
	return exitOK
}

// openAssigned rebuilds the coordinator's plan from the same spec and
// variables, restricted to the assigned cell, checks that the point is
// the one the coordinator described, and opens the store without
// loading it.
func openAssigned(ctx context.Context, a *worker.Assign) (worker.Cell, error) {
	var sf specFlags
	for _, v := range a.Spec.Vars {
		sf.vars = append(sf.vars, config.VarArg{Name: v.Name, Value: v.Value, File: v.File})
	}
	var diagText bytes.Buffer
	spec, ok := loadSpec(a.Spec.Paths, &sf, &diagText)
	if !ok {
		return nil, fmt.Errorf("loading the spec: %s", diagText.String())
	}
	spec.Matrix.ScaleNames, spec.Matrix.BackendNames, spec.Matrix.ScenarioNames = []string{a.Scale}, []string{a.Backend}, []string{a.Scenario}
	p, diags := plan.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
	if diags.HasErrors() {
		return nil, fmt.Errorf("building the plan: %s", diags.Error())
	}
	var pc *plan.Cell
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			if sp.Name == a.Scale && c.Backend.Name == a.Backend {
				pc = c
			}
		}
	}
	if pc == nil {
		return nil, fmt.Errorf("the plan has no cell %s/%s", a.Scale, a.Backend)
	}
	var sc *plan.Scenario
	for _, s := range pc.Scenarios {
		if s.Name == a.Scenario {
			sc = s
		}
	}
	if sc == nil {
		return nil, fmt.Errorf("scenario %s does not run in cell %s", a.Scenario, pc.Name())
	}
	if a.Point < 0 || a.Point >= len(sc.Points) || sc.Points[a.Point].Describe() != a.Describe {
		return nil, fmt.Errorf("point %d of %s is not %q here: the worker's spec or variables differ from the coordinator's", a.Point, a.Scenario, a.Describe)
	}
	return runner.OpenWorkerCell(ctx, pc, drivers.Default, a.Spec.DataDir, a.ReadOnly, !sc.Writes)
}

// workerLauncher starts workers as this executable's worker command, with
// the spec and variables of this command line.
func workerLauncher(paths []string, sf *specFlags, dataDir string, tcp bool, listen string, stderr io.Writer) (*worker.Launcher, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable for worker processes: %w", err)
	}
	ref := worker.SpecRef{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		ref.Paths = append(ref.Paths, abs)
	}
	for _, v := range sf.vars {
		if v.File != "" {
			abs, err := filepath.Abs(v.File)
			if err != nil {
				return nil, err
			}
			v.File = abs
		}
		ref.Vars = append(ref.Vars, worker.Var{Name: v.Name, Value: v.Value, File: v.File})
	}
	if ref.DataDir, err = filepath.Abs(dataDir); err != nil {
		return nil, err
	}
	return &worker.Launcher{Command: []string{exe, "worker"}, TCP: tcp, Listen: listen, Spec: ref, Stderr: stderr}, nil
}
