package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kinds/sustained"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/progress"
	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
	"github.com/mentat-spec/mentat-spec/engine/worker"
)

// isTerminal reports whether w is a character device (a terminal), where
// progress redraws one line instead of printing a line every -progress-s.
func isTerminal(w io.Writer) bool {
	f, ok := redact.File(w)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runApply(args []string, stdout, stderr io.Writer) int {
	var sf specFlags
	fs := newFlagSet("apply", "PATH... [-var name=value] [-o DIR] [-phase all|load|bench|sustained]",
		"Runs the benchmark: for each scale and backend, loads the generated dataset into a store the run creates (or reuses one an earlier run loaded), measures every scenario at every client count, checks every answer against the generator's truth, and writes a results directory. Exits 1 if a check fails, 4 if a threshold is crossed, 7 if the run could not finish, 130 when interrupted.", stderr)
	sf.register(fs)
	out := fs.String("o", "", "results directory (default results/run-<UTC time>); an existing one is appended to")
	resume := fs.String("resume", "", "continue the interrupted run in results directory DIR, with the same spec and variables: the points and checks it finished are not run again, and what it wrote after the last of them is moved under DIR/interrupted/")
	dataDir := fs.String("data", ".", "directory that relative database paths of backends are resolved against, and where backends without a path put their files")
	phase := fs.String("phase", runner.PhaseAll, "all: load where needed, measure, check; load: load and check only; bench: reuse loaded stores, never load; sustained: only the sustained scenarios, on loaded stores")
	reload := fs.Bool("reload", false, "drop and reload stores this tool created even when they already hold the dataset")
	quiet := fs.Bool("q", false, "print only the final table (no log, no progress)")
	progressS := fs.Float64("progress-s", 10, "print a progress line every this many seconds: per stream ops/s, p50, p99 and errors of that interval, and the ETA (on a terminal without it: one line redrawn in place); 0 turns progress off")
	fs.Float64Var(progressS, "progress_s", 10, "the older spelling of -progress-s")
	workerListen := fs.String("worker-listen", "", "start no worker processes: take each point's workers from those that dial HOST:PORT (mentat-spec worker -connect HOST:PORT -loop, on other machines; docs/distributed.md)")
	workerTCP := fs.Bool("worker-tcp", false, "worker processes (backends with clients = \"process\" or processes = N) reach this run over TCP on 127.0.0.1 instead of stdin and stdout")
	secretFile := fs.String("worker-secret-file", "", "with -worker-listen: the run's worker secret is read from FILE (one line, or secret=), which then also gets this run's certificate fingerprint; a missing FILE is created with a new secret. Without it the secret is "+worker.EnvSecret+" or generated (docs/distributed.md)")
	certFile := fs.String("worker-cert", "", "PEM certificate the worker listener presents instead of a self-signed one made for the run (with -worker-key)")
	keyFile := fs.String("worker-key", "", "PEM private key of -worker-cert")
	lockWait := fs.Duration("lock-wait", 24*time.Hour, "how long to wait for another run that holds a store or the results directory (its pid and host are printed); 0 refuses at once")
	var mf metricsFlags
	mf.register(fs)
	maxStore := fs.Float64("max-store-gb", 0, "refuse to load a store estimated (from measured bytes per datom) larger than this many GB; file stores are also refused when larger than the free disk")
	cpuProfile := fs.String("cpuprofile", "", "write the engine's own CPU profile of the whole run to FILE (go tool pprof): where the client's time per call goes")
	paths, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec apply: -cpuprofile: %v\n", err)
			return exitUsage
		}
		defer stop()
	}
	if len(paths) == 0 {
		fs.Usage()
		return exitUsage
	}
	switch *phase {
	case runner.PhaseAll, runner.PhaseLoad, runner.PhaseBench, runner.PhaseSustained:
	default:
		fmt.Fprintf(stderr, "mentat-spec apply: -phase must be all, load, bench or sustained, not %q\n", *phase)
		return exitUsage
	}
	spec, ok := loadSpec(paths, &sf, stderr)
	if !ok {
		return exitUsage
	}
	ctx, cancel := signalContext()
	defer cancel()
	p, diags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
	printDiags(stderr, spec, diags)
	if diags.HasErrors() {
		return exitUsage
	}
	if d := nothingToRun(spec, p, *phase); d != nil {
		printDiags(stderr, spec, hcl.Diagnostics{d})
		return exitUsage
	}
	if msgs := unconfigured(p); len(msgs) > 0 {
		for _, m := range msgs {
			fmt.Fprintf(stderr, "mentat-spec apply: %s\n", m)
		}
		return exitUsage
	}
	dir := *out
	if *resume != "" {
		if *out != "" && filepath.Clean(*out) != filepath.Clean(*resume) {
			fmt.Fprintf(stderr, "mentat-spec apply: -resume %s continues that directory; -o %s names another\n", *resume, *out)
			return exitUsage
		}
		dir = *resume
	}
	if dir == "" {
		dir = filepath.Join("results", "run-"+time.Now().UTC().Format("2006-01-02T150405Z"))
	}
	var log io.Writer = stdout
	var pr *progress.Progress
	if *quiet {
		log = io.Discard
	} else if *progressS > 0 {
		tty := isTerminal(stdout)
		pr = progress.New(stdout, tty, time.Duration(*progressS*float64(time.Second)), p.Estimate().Best)
		if tty {
			pr.SetWidth(func() int { return terminalWidth(stdout) })
			// An interval asked for gets its lines on a terminal too, as
			// pgbench -P prints them.
			fs.Visit(func(f *flag.Flag) {
				if f.Name == "progress-s" || f.Name == "progress_s" {
					pr.SetLines(true)
				}
			})
		}
		log = pr
	}
	// Before the run creates anything: a port in use is a usage error.
	watch, stopMetrics, err := mf.start(ctx, log)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec apply: %v\n", err)
		return exitUsage
	}
	defer stopMetrics()
	var kinds []string
	if *phase == runner.PhaseSustained {
		kinds = []string{sustained.Name}
	}
	sensitive := p.Sensitive // env keys (var.NAME) of the sensitive variables
	env := []results.KV{
		{Key: "mentat_spec_version", Value: versionFact()},
		{Key: "command", Value: "mentat-spec apply " + strings.Join(redactArgs(args, sensitive), " ")},
	}
	sec, credsFile, err := runSecurity(*secretFile, *certFile, *keyFile, *workerListen != "")
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec apply: %v\n", err)
		return exitUsage
	}
	if credsFile != "" && *secretFile == "" {
		defer os.Remove(credsFile) // made for this run only
	}
	launcher, err := workerLauncher(paths, &sf, spec, *dataDir, *workerTCP, *workerListen, sec, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec apply: %v\n", err)
		return exitUnfinished
	}
	defer launcher.Close()
	if *workerListen != "" {
		// Listening from the start: workers connect and authenticate
		// while the run loads, and a port already taken fails here.
		if err := launcher.Listening(); err != nil {
			fmt.Fprintf(stderr, "mentat-spec apply: %v\n", err)
			return exitUnfinished
		}
		how := "with " + worker.EnvSecret + " set to the run's secret"
		if credsFile != "" {
			how = "-secret-file " + credsFile
		}
		fmt.Fprintf(log, "Workers: mentat-spec worker -connect %s -loop %s (TLS, certificate sha256:%s)\n", *workerListen, how, sec.Fingerprint)
	}
	lw := *lockWait
	if lw == 0 {
		lw = -1 // the runner's "refuse at once"
	}
	fmt.Fprintf(log, "Results: %s\n", dir)
	o, err := runner.Run(ctx, p, runner.Options{
		Registry: drivers.Default, ResultsDir: dir, DataDir: *dataDir, Phase: *phase, Reload: *reload,
		Workers: workers(), Log: log, Env: env, MaxStoreBytes: int64(*maxStore * 1e9), Sensitive: func(k string) bool { return sensitive[k] },
		Kinds: kinds, Progress: pr, Launcher: launcher, LockWait: lw, Resume: *resume != "", Watch: watch,
	})
	if o != nil {
		printTable(stdout, o)
	}
	interrupted := ctx.Err() != nil
	exit := applyExit(o, err, interrupted)
	switch {
	case interrupted:
		fmt.Fprintf(stderr, "mentat-spec apply: interrupted; what was measured before is kept in %s%s\n", dir, listFiles(dir))
		fmt.Fprintf(stderr, "To continue from the first point not measured, run the same command with -resume %s\n", dir)
		return exit
	case err != nil:
		fmt.Fprintf(stderr, "mentat-spec apply: %v\n", err)
	default:
		fmt.Fprintf(stdout, "Results in %s%s.\n", dir, listFiles(dir))
	}
	if o == nil {
		return exit
	}
	for _, f := range o.Failures {
		fmt.Fprintf(stderr, "failed: %s\n", f)
	}
	for _, f := range allCallsFailed(o.Rows) {
		fmt.Fprintf(stderr, "no result: %s (see %s)\n", f, filepath.Join(dir, "logs", "errors.log"))
	}
	if o.Checks.Fail > 0 {
		fmt.Fprintf(stderr, "%d check(s) FAILED: see %s\n", o.Checks.Fail, filepath.Join(dir, "checks.txt"))
	}
	if o.Checks.Threshold > 0 {
		fmt.Fprintf(stderr, "%d threshold(s) CROSSED: see the THRESHOLD lines of %s\n", o.Checks.Threshold, filepath.Join(dir, "checks.txt"))
		printThresholdWhy(stderr, dir)
	}
	return exit
}

// listFiles names the reports and tables of dir that exist, as
// " (report.html, ...)": a file the run never wrote is not offered.
func listFiles(dir string) string {
	var have []string
	for _, name := range append(report.Files(), results.TimingsFile, results.ChecksFile) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			have = append(have, name)
		}
	}
	if len(have) == 0 {
		return ""
	}
	return " (" + strings.Join(have, ", ") + ")"
}

// nothingToRun is the diagnostic for a plan that would measure nothing: no
// backend declared, or (unless only loading) no scenario that runs on a
// selected backend. Exit 0 after running nothing would read as success.
func nothingToRun(spec *config.Spec, p *plan.Plan, phase string) *hcl.Diagnostic {
	var subject *hcl.Range
	if spec.Matrix != nil && spec.Matrix.DeclRange.Filename != "" {
		subject = spec.Matrix.DeclRange.Ptr()
	} else if len(spec.Scales) > 0 {
		subject = spec.Scales[0].DeclRange.Ptr()
	}
	cells, scenarios := 0, 0
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			cells++
			scenarios += len(c.Scenarios)
		}
	}
	switch {
	case cells == 0:
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nothing to run",
			Detail: `The spec selects no backend, so apply would run nothing. Declare a backend "name" {} block (or select one in matrix.backends).`, Subject: subject}
	case scenarios == 0 && phase != runner.PhaseLoad:
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nothing to measure",
			Detail: "No selected scenario runs on a selected backend, so apply would measure nothing. Declare a scenario, select one in matrix.scenarios, or run with -phase load to only load.", Subject: subject}
	}
	return nil
}

// unconfigured lists the selected backends their drivers say cannot be
// opened as configured (a PostgreSQL backend without a DSN), each with the
// fix, so apply stops before it creates a results directory.
func unconfigured(p *plan.Plan) []string {
	var out []string
	for _, u := range unconfiguredBackends(p) {
		out = append(out, fmt.Sprintf("backend %q: %v", u.backend, u.err))
	}
	return out
}

// redactArgs hides the values of -var arguments that set sensitive
// variables, in both "-var name=value" and "-var=name=value" forms.
func redactArgs(args []string, sensitive map[string]bool) []string {
	out := append([]string(nil), args...)
	redact := func(assign string) (string, bool) {
		name, _, ok := strings.Cut(assign, "=")
		if ok && sensitive["var."+name] {
			return name + "=(redacted)", true
		}
		return assign, false
	}
	for i, a := range out {
		flagName, assign, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "-") && flagName == "var" && inline:
			if r, ok := redact(assign); ok {
				out[i] = "-var=" + r
			}
		case i > 0 && (args[i-1] == "-var" || args[i-1] == "--var"):
			out[i], _ = redact(a)
		}
	}
	return out
}

func printTable(w io.Writer, o *runner.Outcome) {
	if len(o.Rows) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "scenario\tbackend\tscale\tclients\top\tn\tp50 ms\tp99 ms\tops/s\terrors\t")
		for _, r := range o.Rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d\t%.3f\t%.3f\t%.1f\t%d\t\n",
				r.Scenario, r.Backend, r.Scale, r.Clients, r.Op, r.Count, r.P50Ms, r.P99Ms, r.Throughput, r.Errors)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "Checks: %d PASS, %d FAIL, %d SKIP", o.Checks.Pass, o.Checks.Fail, o.Checks.Skip)
	if o.Checks.Threshold > 0 {
		fmt.Fprintf(w, ", %d THRESHOLD", o.Checks.Threshold)
	}
	fmt.Fprintln(w)
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", "DIR", "Regenerates "+report.FileList()+" of a results directory from its files (timings.csv, loads.csv, checks.txt, env.txt, ...):\n"+formatLines(), stderr)
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	if st, err := os.Stat(pos[0]); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "mentat-spec report: %s is not a results directory\n", pos[0])
		return exitUsage
	}
	if err := report.WriteAll(pos[0]); err != nil {
		fmt.Fprintf(stderr, "mentat-spec report: %v\n", err)
		return exitUnfinished
	}
	for _, f := range report.Files() {
		fmt.Fprintf(stdout, "Wrote %s\n", filepath.Join(pos[0], f))
	}
	return exitOK
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", "OLD NEW [-method stats|threshold] [-threshold PCT] [-alpha A] [-noise-bound PCT] [-calibrate AA_RUN...] [-force] [-fail-undecided] [-html FILE] [-markdown] | RUN -variants A,B [...]",
		"Compares two results directories point by point (scenario, backend, scale, clients, op). First it checks that they are comparable: a different spec, dataset, scale, variable, backend setting or version is listed side by side and the comparison is refused (exit 6) unless -force. "+
			"Method stats (the default) takes each rep of raw.csv as one observation: a p50, p99 or throughput change is a regression when the Mann-Whitney U test finds NEW's reps differ from OLD's (p < alpha) and the whole confidence interval of the change (Hodges-Lehmann) lies beyond the threshold; with too few reps (fewer than 4 and 4 at alpha 0.05) it says it cannot decide. "+
			"Method threshold is the seed suite's rule on the medians of timings.csv. Both flag new errors, new ceilings and missing rows. Exits 5 on any regression, 6 when refused (or, with -fail-undecided, when a metric cannot be decided), 0 otherwise, so it can gate a release.", stderr)
	method := fs.String("method", compare.MethodStats, "stats: a significance test over reps; threshold: medians beyond the threshold")
	threshold := fs.Float64("threshold", 10, "percent change that counts as a regression (with stats, the change's confidence interval must lie beyond it)")
	alpha := fs.Float64("alpha", 0.05, "significance level of the stats method (0.05: 95% confidence)")
	force := fs.Bool("force", false, "compare even when the runs are not comparable (the differences are still listed)")
	noiseBound := fs.Float64("noise-bound", 10, "points of the machine's CPU by which the share taken by other processes (or stolen by the hypervisor) may differ between the runs (noise.csv) before a metric that moved is reported as undecided instead of a regression; 0 does not weigh the noise; -force judges anyway")
	failUndecided := fs.Bool("fail-undecided", false, "exit 6 when a metric cannot be decided (too few reps, or the machines' noise differs), instead of 0: no verdict is not a pass")
	htmlOut := fs.String("html", "", "also write the comparison as one self-contained HTML page to FILE (both runs side by side, changes marked)")
	markdown := fs.Bool("markdown", false, "print the verdict as Markdown, for a pull request: the verdict and, beside every point that moved, the evidence that moved with it")
	variants := fs.String("variants", "", "A,B: compare two backends of ONE run (compare RUN -variants A,B): A as OLD, B as NEW, point by point, with the same statistics; what their env lines set differently is listed as what the variants change. Run them with sampling order = \"paired\" so that their reps alternate and the machine's drift hits both alike")
	var calibrate repeated
	fs.Var(&calibrate, "calibrate", "an A/A run: a results directory of the same spec on this machine with nothing changed (repeat, two or more): the variation between these runs is estimated, and each change of NEW must stand out from it as well as from the reps' spread. Without it the verdict assumes runs differ no more than their reps")
	pos, code, ok := parseOrExit(fs, args)
	if !ok {
		return code
	}
	if *variants != "" && len(pos) != 1 || *variants == "" && len(pos) != 2 {
		fs.Usage()
		return exitUsage
	}
	opts := compare.Options{Method: *method, ThresholdPct: *threshold, Alpha: *alpha, Force: *force, NoiseBoundPct: *noiseBound}
	if len(calibrate) > 0 {
		rv, err := compare.Calibrate(calibrate)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec compare: -calibrate: %v\n", err)
			return exitUsage
		}
		opts.RunVariation = rv
	}
	if *variants != "" {
		a, b, ok := strings.Cut(*variants, ",")
		if !ok || a == "" || b == "" {
			fmt.Fprintf(stderr, "mentat-spec compare: -variants wants two backends, A,B, got %q\n", *variants)
			return exitUsage
		}
		verdict, err := compare.Variants(pos[0], strings.TrimSpace(a), strings.TrimSpace(b), opts)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec compare: %v\n", err)
			return exitUsage
		}
		return finishCompare(verdict, *htmlOut, *markdown, *failUndecided, stdout, stderr)
	}
	// Each run is read once; everything below takes the loaded values.
	var runs [2]*results.Run
	for i, d := range pos {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "mentat-spec compare: results: compare: %s is not a results directory\n", d)
			return exitUsage
		}
		r, err := results.Load(d)
		if err != nil {
			fmt.Fprintf(stderr, "mentat-spec compare: %v\n", err)
			return exitUsage
		}
		runs[i] = r
	}
	// When both runs recorded what they ran, points whose query, scenario
	// or dataset changed are listed and left out; the rest are compared.
	c, ferr := compare.Unchanged(runs[0], runs[1])
	switch {
	case ferr == nil:
		opts.Comparable, opts.LoadComparable = c.Comparable, c.LoadComparable
		for _, n := range c.NotCompared {
			opts.NotCompared = append(opts.NotCompared, n.String())
		}
	case errors.Is(ferr, results.ErrNoFingerprints):
		// Runs from before fingerprints: the whole spec's hash decides.
	default:
		fmt.Fprintf(stderr, "mentat-spec compare: %v\n", ferr)
		return exitUsage
	}
	verdict, err := compare.Runs(runs[0], runs[1], opts)
	if err != nil {
		fmt.Fprintf(stderr, "mentat-spec compare: %v\n", err)
		return exitUsage
	}
	return finishCompare(verdict, *htmlOut, *markdown, *failUndecided, stdout, stderr)
}

// finishCompare prints a verdict, writes its page when asked, and
// returns compare's exit code.
func finishCompare(verdict compare.Verdict, htmlOut string, markdown, failUndecided bool, stdout, stderr io.Writer) int {
	write := verdict.Write
	if markdown {
		write = func(w io.Writer) error { _, err := io.WriteString(w, verdict.Markdown()); return err }
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "mentat-spec compare: %v\n", err)
		return exitUnfinished
	}
	if htmlOut != "" {
		if err := writeCompareHTML(htmlOut, verdict); err != nil {
			fmt.Fprintf(stderr, "mentat-spec compare: %v\n", err)
			return exitUnfinished
		}
		fmt.Fprintf(stdout, "Wrote %s\n", htmlOut)
	}
	if verdict.Refused {
		fmt.Fprintf(stderr, "mentat-spec compare: %s and %s are not comparable (%s); -force compares them anyway\n", verdict.Old, verdict.New, report.Plural(len(verdict.Differences), "difference", "differences"))
	}
	return compareExit(verdict, failUndecided)
}

// formatLines lists the report formats, one per line, for the help.
func formatLines() string {
	var b strings.Builder
	for _, f := range report.Formats() {
		fmt.Fprintf(&b, "\n  %-13s %s", f.File, f.Description)
	}
	return b.String()
}

// writeCompareHTML writes the comparison page to path.
func writeCompareHTML(path string, v compare.Verdict) error {
	var b strings.Builder
	if err := compare.HTML(v, &b); err != nil {
		return err
	}
	if err := redact.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// runSecurity is the run's worker secret and certificate. The secret is
// the environment's, or secretFile's (created with a new secret when
// missing), or new; never an argument. With listen and no file given, a
// new secret is written to a file only this user reads, removed when the
// run ends. It returns the credentials file workers may read ("" when
// none), which holds this run's certificate fingerprint too.
func runSecurity(secretFile, certFile, keyFile string, listen bool) (*worker.Security, string, error) {
	var secret []byte
	if secretFile != "" {
		c, err := worker.ParseCredentialsFile(secretFile)
		switch {
		case err == nil:
			secret = c.Secret
		case errors.Is(err, os.ErrNotExist):
		default:
			return nil, "", err
		}
	}
	if env := strings.TrimSpace(os.Getenv(worker.EnvSecret)); secret == nil && env != "" {
		secret = []byte(env)
	}
	fromEnv := secret != nil && secretFile == ""
	if secret == nil {
		var err error
		if secret, err = worker.GenerateSecret(); err != nil {
			return nil, "", err
		}
	}
	sec, err := worker.NewSecurity(secret, certFile, keyFile)
	if err != nil {
		return nil, "", err
	}
	if !listen || fromEnv {
		return sec, "", nil // started workers get it in their environment
	}
	path := secretFile
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("mentat-spec-worker-%d.credentials", os.Getpid()))
	}
	// Written anew (same secret, this run's fingerprint) so that workers
	// reading it pin this run's certificate.
	tmp := path + ".new"
	_ = os.Remove(tmp)
	if err := worker.WriteCredentialsFile(tmp, sec.Credentials(), "mentat-spec worker credentials: the run's secret and its certificate's fingerprint"); err != nil {
		return nil, "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, "", fmt.Errorf("writing the worker credentials: %w", err)
	}
	return sec, path, nil
}

// repeated is a flag that may be given several times, in order.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
