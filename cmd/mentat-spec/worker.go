package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/runner"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

func runWorker(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("worker", "[-connect HOST:PORT [-secret-file FILE]]",
		"Runs the clients of one point for a coordinator (a run of apply): the coordinator sends the spec, the cell, the point and this worker's share of the clients; the worker opens them against the store the coordinator loaded, waits at its barrier, measures and returns its histograms. Speaks docs/worker-protocol.md on stdin and stdout, or over TCP (TLS) with -connect. Not meant to be started by hand. "+
			"Over TCP the worker proves it holds the run's secret, from "+worker.EnvSecret+" or -secret-file (never an argument), and pins the coordinator's certificate when "+worker.EnvFingerprint+" or the file gives its fingerprint. Sensitive variables come from this worker's environment ("+config.EnvVarPrefix+"name), never from the coordinator.", stderr)
	connect := fs.String("connect", "", "dial the coordinator at HOST:PORT instead of using stdin and stdout")
	loop := fs.Bool("loop", false, "with -connect: after each point dial again for the next one, until the coordinator says its run is over (workers started apart from the run, e.g. a Kubernetes Job); failures are retried with a growing pause, and the worker gives up (exit 7) after 5 refusals in a row or -wait without reaching the coordinator")
	wait := fs.Duration("wait", time.Minute, "with -loop: how long to keep dialling without reaching the coordinator (while it starts, or between points) before giving up")
	secretFile := fs.String("secret-file", "", "read the run's secret (and the certificate fingerprint to pin) from FILE: one line, or the secret=/fingerprint= lines apply writes")
	caFile := fs.String("ca", "", "verify the coordinator's certificate (one the user gave apply with -worker-cert) against the PEM roots in FILE")
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		fs.Usage()
		return exitUsage
	}
	creds, err := workerCredentials(*secretFile, *caFile)
	if err == nil && *connect != "" {
		// Over TCP a worker without the secret gets nothing: say so now
		// rather than after -wait of retries.
		err = worker.CheckSecret(creds.Secret)
		if err != nil {
			err = fmt.Errorf("%w: set %s or -secret-file", err, worker.EnvSecret)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
		return exitUsage
	}
	// A worker runs only clients: drivers may give them the whole process
	// (PostgreSQL's raw sessions then keep no spare P).
	drivers.SetClientProcess(true)
	ctx, cancel := signalContext()
	defer cancel()
	open := assignedOpener(creds.Secret)
	if *loop {
		if *connect == "" {
			fmt.Fprintln(stderr, "mentat-spec worker: -loop needs -connect")
			return exitUsage
		}
		return workerLoop(ctx, *connect, creds, open, *wait, stderr)
	}
	conn := worker.NewConn(os.Stdin, stdout, nil)
	if *connect != "" {
		c, err := worker.Dial(ctx, *connect, creds)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
			return exitUnfinished
		}
		conn = c
	}
	defer conn.Close()
	if err := worker.Serve(ctx, conn, open); err != nil {
		fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
		if errors.Is(err, worker.ErrRunOver) {
			return exitOK // no point left for it: nothing failed
		}
		return exitUnfinished
	}
	return exitOK
}

// workerCredentials are the run's secret and how to check the
// coordinator's certificate: from secretFile when given, else the
// environment; a fingerprint in the environment overrides the file's.
func workerCredentials(secretFile, caFile string) (worker.Credentials, error) {
	var c worker.Credentials
	if secretFile != "" {
		var err error
		if c, err = worker.ParseCredentialsFile(secretFile); err != nil {
			return c, err
		}
	} else {
		c.Secret = []byte(strings.TrimSpace(os.Getenv(worker.EnvSecret)))
	}
	if fp := os.Getenv(worker.EnvFingerprint); fp != "" {
		c.Fingerprint = worker.NormalizeFingerprint(fp)
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return c, fmt.Errorf("reading -ca: %w", err)
		}
		c.Roots = x509.NewCertPool()
		if !c.Roots.AppendCertsFromPEM(pem) {
			return c, fmt.Errorf("-ca %s holds no PEM certificate", caFile)
		}
	}
	return c, nil
}

// workerLoop serves one point per connection until the coordinator says
// its run is over (exit 0). It gives up (exit 7) after a few refusals in
// a row or when the coordinator cannot be reached for wait, pausing
// longer after each failure (worker.Loop).
func workerLoop(ctx context.Context, addr string, creds worker.Credentials, open worker.Opener, wait time.Duration, stderr io.Writer) int {
	err := worker.Loop(ctx, addr, creds, open, worker.LoopOptions{Wait: wait, Log: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec worker: %v\n", err)
		return exitUnfinished
	}
	return exitOK
}

// assignedOpener opens assignments, checking sensitive variables against
// their hashes under secret.
func assignedOpener(secret []byte) worker.Opener {
	return func(ctx context.Context, a *worker.Assign) (worker.Cell, error) {
		return openAssigned(ctx, a, secret)
	}
}

// openAssigned rebuilds the coordinator's plan from the same spec and
// variables, restricted to the assigned cell, checks that the point is
// the one the coordinator described, and opens the store without
// loading it.
func openAssigned(ctx context.Context, a *worker.Assign, secret []byte) (worker.Cell, error) {
	var sf specFlags
	for _, v := range a.Spec.Vars {
		sf.vars = append(sf.vars, config.VarArg{Name: v.Name, Value: v.Value, File: v.File})
	}
	var diagText bytes.Buffer
	spec, ok := loadSpec(a.Spec.Paths, &sf, &diagText)
	if !ok {
		return nil, fmt.Errorf("loading the spec: %s", diagText.String())
	}
	if err := checkSensitive(spec, a.Spec.Sensitive, secret); err != nil {
		return nil, err
	}
	spec.Matrix.ScaleNames, spec.Matrix.BackendNames, spec.Matrix.ScenarioNames = []string{a.Scale}, []string{a.Backend}, []string{a.Scenario}
	p, diags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
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

// checkSensitive compares this worker's sensitive variables with the
// coordinator's hashes; a difference names the variable, never a value.
func checkSensitive(spec *config.Spec, want []worker.SensitiveVar, secret []byte) error {
	if len(want) == 0 {
		return nil
	}
	if len(secret) == 0 {
		return fmt.Errorf("the assignment has sensitive variables and this worker has no run secret (%s) to check them with", worker.EnvSecret)
	}
	byName := map[string]*config.Variable{}
	for _, v := range spec.Variables {
		byName[v.Name] = v
	}
	for _, sv := range want {
		v := byName[sv.Name]
		if v == nil || !v.Sensitive {
			return fmt.Errorf("variable %q is sensitive on the coordinator and not declared so here: the worker's spec differs", sv.Name)
		}
		b, err := sensitiveValue(v)
		if err != nil {
			return err
		}
		if !worker.SameVar(secret, sv.Name, b, sv.Hash) {
			return fmt.Errorf("sensitive variable %q differs from the coordinator's (from %s here): set %s%s in this worker's environment to the run's value", sv.Name, v.Source, config.EnvVarPrefix, sv.Name)
		}
	}
	return nil
}

// sensitiveValue is the bytes a sensitive variable's hash is taken over:
// its value in force as JSON, the same on both sides for the same value
// whatever set it.
func sensitiveValue(v *config.Variable) ([]byte, error) {
	b, err := ctyjson.Marshal(v.Value, v.Type)
	if err != nil {
		return nil, fmt.Errorf("variable %q: %w", v.Name, err)
	}
	return b, nil
}

// workerLauncher starts workers as this executable's worker command, with
// the spec and variables of this command line. A sensitive variable's
// -var never goes into the assignment: its hash does, and the workers
// this process starts get its value in their environment.
func workerLauncher(paths []string, sf *specFlags, spec *config.Spec, dataDir string, tcp bool, listen string, sec *worker.Security, stderr io.Writer) (*worker.Launcher, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable for worker processes: %w", err)
	}
	sensitive := spec.SensitiveVariables()
	ref := worker.SpecRef{}
	var env []string
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
		if v.File == "" && sensitive[v.Name] != nil {
			env = append(env, config.EnvVarPrefix+v.Name+"="+v.Value)
			continue
		}
		ref.Vars = append(ref.Vars, worker.Var{Name: v.Name, Value: v.Value, File: v.File})
	}
	names := make([]string, 0, len(sensitive))
	for n := range sensitive {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := sensitiveValue(sensitive[n])
		if err != nil {
			return nil, err
		}
		ref.Sensitive = append(ref.Sensitive, worker.SensitiveVar{Name: n, Hash: worker.VarHash(sec.Secret, n, b)})
	}
	if ref.DataDir, err = filepath.Abs(dataDir); err != nil {
		return nil, err
	}
	return &worker.Launcher{Command: []string{exe, "worker"}, TCP: tcp, Listen: listen, Spec: ref, Security: sec, Env: env, Stderr: stderr}, nil
}
