package compare

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Finding kinds.
const (
	KindP50         = "p50"          // p50 latency rose beyond the threshold
	KindP99         = "p99"          // p99 latency rose beyond the threshold
	KindThroughput  = "throughput"   // ops/s fell beyond the threshold
	KindErrors      = "errors"       // more errors than before
	KindCeiling     = "ceiling"      // a scenario that ran now hits the probe ceiling
	KindMissing     = "missing"      // a row of OLD is not in NEW
	KindLoadRate    = "load_rate"    // bulk-load datoms/s fell beyond the threshold
	KindLoadCeiling = "load_ceiling" // a load now hits the load cap
)

// Finding is one regression.
type Finding struct {
	Kind     string
	What     string  // the point: "scenario backend scale clients=N op", or less for ceilings and loads
	Old, New float64 // for the statistical method, the medians of the reps
	Pct      float64 // change in percent where it applies
	// Stat is the statistical evidence of a metric finding of the
	// statistical method; nil for the threshold method.
	Stat *MetricVerdict
	// Text is a rule's finding as said after its point (Rule).
	Text string
}

// Comparison methods.
const (
	MethodStats     = "stats"     // per-rep values, Mann-Whitney U test and Hodges-Lehmann interval
	MethodThreshold = "threshold" // the seed suite's rule: medians beyond a threshold
)

// Options says how Dirs decides.
type Options struct {
	Method       string  // MethodStats (default when empty) or MethodThreshold
	ThresholdPct float64 // a change must exceed this to count
	Alpha        float64 // significance level of the statistical method (default 0.05)
	Force        bool    // compare even when the runs are not comparable
	// Comparable, when set, says which points kept their definition
	// (query, scenario and dataset fingerprints): the others are left out
	// and listed in Verdict.NotCompared. With it, a different spec hash is
	// no longer by itself a reason to refuse.
	Comparable func(results.Key) bool
	// LoadComparable says which (backend, scale) loads kept their dataset.
	LoadComparable func(backend, scale string) bool
	// NotCompared describes what Comparable leaves out, for the report.
	NotCompared []string
	// NoiseBoundPct is how many points of the machine's CPU the other
	// processes' (or the hypervisor's) share may differ by between the
	// runs before a metric that moved cannot be decided (0: not weighed).
	NoiseBoundPct float64
	// RunVariation, when set (Calibrate), is the variation between runs
	// that a change must stand out from besides the reps' own spread.
	RunVariation *RunVariation

	// variants: OLD and NEW are two backends of one run (Variants): what
	// their env lines differ in is what they measure, not a refusal.
	variants bool
	// variantOf are OLD's and NEW's backends when variants.
	variantOf [2]string
}

// Verdict is the outcome of comparing two runs (Dirs). String prints it
// as text, HTML as a page.
type Verdict struct {
	Old, New     string
	Method       string
	ThresholdPct float64
	Alpha        float64 // statistical method only
	// Differences between OLD and NEW that make them not comparable
	// (spec, dataset, scales, variables, settings, versions). With any,
	// the comparison is Refused unless forced.
	Differences []Difference
	Refused     bool
	Compared    int // points present in both runs
	OnlyNew     int // points only in NEW (not regressions)
	Findings    []Finding
	// Verdicts holds every metric of every matched point under the
	// statistical method, in OLD's row order.
	Verdicts []MetricVerdict
	Notes    []string // what could not be checked or decided
	// Why is the evidence that moved with each point whose verdict
	// moved, ranked (filled by a registered rule; see why.go).
	Why []Why
	// NotCompared lists the points whose definitions changed between the
	// runs (from their fingerprints): reported, never judged.
	NotCompared []string
	// NoiseOld and NoiseNew are the machine's noise during each run
	// (noise.csv); NoiseReason says how they differ beyond NoiseBoundPct.
	NoiseOld, NoiseNew results.Noise
	NoiseBoundPct      float64
	NoiseReason        string
	// RunVariation is the run-to-run variation the verdicts allowed for
	// (nil: none estimated, the reps' spread alone).
	RunVariation *RunVariation
	// Variants: OLD and NEW are two backends of one run (Variants).
	Variants bool
	// UndecidedRows counts, by rule (Rule), the rows of either side that
	// a kind's rule could not decide (a capacity search that found none).
	UndecidedRows map[string]int

	force          bool
	oldRun, newRun *results.Run // what was compared, for the page's side-by-side table
	comparable     func(results.Key) bool
	loadComparable func(backend, scale string) bool
}

func (r *Verdict) keep(k results.Key) bool { return r.comparable == nil || r.comparable(k) }

func (r *Verdict) keepLoad(backend, scale string) bool {
	return r.loadComparable == nil || r.loadComparable(backend, scale)
}

// Regressed reports whether there is any regression. A refused
// comparison has none: see Refused.
func (r Verdict) Regressed() bool { return len(r.Findings) > 0 }

// Undecided counts the metrics the statistical method could not decide:
// no verdict, which a gate must not read as a pass.
func (r Verdict) Undecided() int {
	n := r.undecidedRows()
	for _, v := range r.Verdicts {
		if v.Outcome == OutUndecided || v.Outcome == OutNoisy {
			n++
		}
	}
	return n
}

// Write prints the report as text.
func (r Verdict) Write(w io.Writer) error {
	_, err := io.WriteString(w, r.String())
	return err
}

func (r Verdict) String() string {
	var b strings.Builder
	if r.Method == MethodStats {
		fmt.Fprintf(&b, "compare %s -> %s (statistics over reps: Mann-Whitney U at alpha %s, threshold %s%%)\n",
			r.Old, r.New, strconv.FormatFloat(r.Alpha, 'f', -1, 64), strconv.FormatFloat(r.ThresholdPct, 'f', -1, 64))
	} else {
		fmt.Fprintf(&b, "compare %s -> %s (threshold %s%%)\n", r.Old, r.New, strconv.FormatFloat(r.ThresholdPct, 'f', -1, 64))
	}
	writeDifferences(&b, r.Differences, r.Refused, r.Variants)
	if r.Refused {
		return b.String()
	}
	fmt.Fprintf(&b, "%d points compared, %d only in NEW\n", r.Compared, r.OnlyNew)
	for _, n := range r.NotCompared {
		fmt.Fprintf(&b, "not compared: %s\n", n)
	}
	if r.Method == MethodStats {
		writeRunVariation(&b, r)
		writeNoise(&b, r)
		writeVerdicts(&b, r.Verdicts)
	}
	for _, f := range r.Findings {
		if f.Stat != nil {
			continue // in the verdict table above
		}
		b.WriteString("REGRESSION ")
		b.WriteString(f.What)
		b.WriteString(": ")
		switch f.Kind {
		case KindP50, KindP99:
			fmt.Fprintf(&b, "%s %s -> %s ms (%+.1f%%)", f.Kind, report.FormatMs(f.Old), report.FormatMs(f.New), f.Pct)
		case KindThroughput:
			fmt.Fprintf(&b, "ops/s %s -> %s (%+.1f%%)", report.FormatRate(f.Old), report.FormatRate(f.New), f.Pct)
		case KindLoadRate:
			fmt.Fprintf(&b, "datoms/s %s -> %s (%+.1f%%)", results.Thousands(int64(math.Round(f.Old))), results.Thousands(int64(math.Round(f.New))), f.Pct)
		case KindErrors:
			fmt.Fprintf(&b, "errors %d -> %d", int64(f.Old), int64(f.New))
		case KindCeiling:
			fmt.Fprintf(&b, "now a ceiling (first call %s ms)", report.FormatMs(f.New))
		case KindLoadCeiling:
			b.WriteString("bulk load now hits the load cap")
		case KindMissing:
			b.WriteString("missing from NEW")
		default:
			b.WriteString(f.Text) // a rule's finding says itself
		}
		b.WriteString("\n")
	}
	writeWhy(&b, r.Why)
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	if r.Method == MethodStats {
		writeTally(&b, r.Verdicts, r.Alpha)
	}
	switch u := r.Undecided(); {
	case r.Regressed():
		fmt.Fprintf(&b, "%d regressions\n", len(r.Findings))
	case u > 0:
		// Undecided is not a pass: said as plainly as a regression.
		fmt.Fprintf(&b, "no regressions found, but %d metrics CANNOT BE DECIDED (-fail-undecided makes that fail)\n", u)
	default:
		b.WriteString("no regressions\n")
	}
	return b.String()
}

// Dirs compares two results directories. First it checks that they are
// comparable (see Differences): when they are not and opt.Force is false
// the verdict is Refused and nothing else is compared. Then rows are
// matched on (scenario, backend, scale, clients, op). Under
// MethodThreshold it is the seed suite's compare.py: p50/p99 increases and
// throughput drops beyond the threshold, new errors, a scenario that
// became a ceiling and rows missing from NEW are regressions. Under
// MethodStats the p50, p99 and throughput of each point are decided from
// the per-rep values of raw.csv (see MetricVerdict), while errors,
// ceilings, missing rows and load ceilings are found as under the
// threshold method. A single bulk load per run gives no variation to
// judge, so load rates are notes, not findings. Compare runs from the
// same kind of machine only.
func Dirs(oldDir, newDir string, opt Options) (Verdict, error) {
	var runs [2]*results.Run
	for i, d := range []string{oldDir, newDir} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return Verdict{Old: oldDir, New: newDir}, fmt.Errorf("results: compare: %s is not a results directory", d)
		}
		r, err := results.Load(d)
		if err != nil {
			return Verdict{Old: oldDir, New: newDir}, fmt.Errorf("compare %s: %w", [2]string{"OLD", "NEW"}[i], err)
		}
		runs[i] = r
	}
	return Runs(runs[0], runs[1], opt)
}

// Runs compares two loaded runs as Dirs does their directories: it reads
// nothing but the two values.
func Runs(oldRun, newRun *results.Run, opt Options) (Verdict, error) {
	oldDir, newDir := oldRun.Dir, newRun.Dir
	if opt.Method == "" {
		opt.Method = MethodStats
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	switch {
	case opt.Method != MethodStats && opt.Method != MethodThreshold:
		return Verdict{}, fmt.Errorf("results: compare: method %q, want %s or %s", opt.Method, MethodStats, MethodThreshold)
	case math.IsNaN(opt.ThresholdPct) || opt.ThresholdPct < 0:
		return Verdict{}, fmt.Errorf("results: compare: threshold %v%% must be >= 0", opt.ThresholdPct)
	case !(opt.Alpha > 0 && opt.Alpha < 1):
		return Verdict{}, fmt.Errorf("results: compare: alpha %v must be between 0 and 1", opt.Alpha)
	case math.IsNaN(opt.NoiseBoundPct) || opt.NoiseBoundPct < 0:
		return Verdict{}, fmt.Errorf("results: compare: noise bound %v must be >= 0", opt.NoiseBoundPct)
	}
	verdict := Verdict{Old: oldDir, New: newDir, Method: opt.Method, ThresholdPct: opt.ThresholdPct,
		NotCompared: opt.NotCompared, comparable: opt.Comparable, loadComparable: opt.LoadComparable,
		NoiseBoundPct: opt.NoiseBoundPct, force: opt.Force, RunVariation: opt.RunVariation}
	if opt.Method == MethodStats {
		verdict.Alpha = opt.Alpha
	}
	verdict.oldRun, verdict.newRun = oldRun, newRun
	diffs, notes, err := Differences(oldRun, newRun)
	if err != nil {
		return verdict, err
	}
	if opt.Comparable != nil {
		// Fingerprints decide per point: the whole spec's hash does not.
		kept := diffs[:0]
		for _, d := range diffs {
			if d.Key != "spec_sha256" {
				kept = append(kept, d)
			}
		}
		diffs = kept
	}
	verdict.Differences, verdict.Notes = diffs, notes
	if len(diffs) > 0 && !opt.Force && !opt.variants {
		verdict.Refused = true
		return verdict, nil
	}
	if err := compareRows(&verdict, oldRun, newRun); err != nil {
		return verdict, err
	}
	if opt.Method == MethodStats {
		if err := compareReps(&verdict, oldRun, newRun); err != nil {
			return verdict, err
		}
	}
	return verdict, explainMoved(&verdict, oldRun, newRun, opt.variantOf)
}

// compareRows finds the regressions of timings.csv and loads.csv; under
// the statistical method only those that are not metric changes.
func compareRows(verdict *Verdict, oldRun, newRun *results.Run) error {
	metrics := verdict.Method != MethodStats
	thresholdPct := verdict.ThresholdPct
	for _, x := range []struct {
		side string
		run  *results.Run
	}{{"OLD", oldRun}, {"NEW", newRun}} {
		if !x.run.Has(results.TimingsFile) {
			// Worded as reading the file said it, before runs were loaded.
			return fmt.Errorf("compare %s: results: %w", x.side, &fs.PathError{Op: "open", Path: filepath.Join(x.run.Dir, results.TimingsFile), Err: syscall.ENOENT})
		}
	}
	oldRows, newRows := oldRun.Points(), newRun.Points()

	type scenarioKey struct{ scenario, backend, scale string }
	sk := func(r results.Row) scenarioKey { return scenarioKey{r.Scenario, r.Backend, r.Scale} }
	oldByKey := map[results.Key]results.Row{}
	oldCeiling := map[scenarioKey]bool{}
	for _, r := range oldRows {
		oldByKey[r.Key()] = r
		if r.Op == "ceiling" {
			oldCeiling[sk(r)] = true
		}
	}
	newKeys := map[results.Key]bool{}
	newCeiling := map[scenarioKey]bool{}
	up := 1 + thresholdPct/100
	down := 1 - thresholdPct/100
	for _, n := range newRows {
		if !verdict.keep(n.Key()) {
			continue
		}
		newKeys[n.Key()] = true
		if n.Op == "ceiling" {
			newCeiling[sk(n)] = true
			if !oldCeiling[sk(n)] {
				verdict.Findings = append(verdict.Findings, Finding{Kind: KindCeiling, What: n.Scenario + " " + n.Backend + " " + n.Scale, New: n.P50Ms})
			}
		}
		o, ok := oldByKey[n.Key()]
		if !ok {
			verdict.OnlyNew++
			continue
		}
		verdict.Compared++
		what := n.Key().String()
		if n.Op != "ceiling" && metrics {
			if o.P50Ms > 0 && n.P50Ms > o.P50Ms*up {
				verdict.Findings = append(verdict.Findings, Finding{Kind: KindP50, What: what, Old: o.P50Ms, New: n.P50Ms, Pct: pct(o.P50Ms, n.P50Ms)})
			}
			if o.P99Ms > 0 && n.P99Ms > o.P99Ms*up {
				verdict.Findings = append(verdict.Findings, Finding{Kind: KindP99, What: what, Old: o.P99Ms, New: n.P99Ms, Pct: pct(o.P99Ms, n.P99Ms)})
			}
			if o.Throughput > 0 && n.Throughput < o.Throughput*down {
				verdict.Findings = append(verdict.Findings, Finding{Kind: KindThroughput, What: what, Old: o.Throughput, New: n.Throughput, Pct: pct(o.Throughput, n.Throughput)})
			}
		}
		if n.Errors > o.Errors {
			verdict.Findings = append(verdict.Findings, Finding{Kind: KindErrors, What: what, Old: float64(o.Errors), New: float64(n.Errors)})
		}
	}
	for _, o := range oldRows {
		// A scenario that became a ceiling lost its rows: reported once above.
		if !newKeys[o.Key()] && !newCeiling[sk(o)] && verdict.keep(o.Key()) {
			verdict.Findings = append(verdict.Findings, Finding{Kind: KindMissing, What: o.Key().String()})
		}
	}

	oldLoads, newLoads := oldRun.Loads, newRun.Loads
	type loadKey struct{ backend, scale string }
	lk := func(l results.LoadRow) loadKey { return loadKey{l.Backend, l.Scale} }
	oldL := map[loadKey]results.LoadRow{}
	for _, l := range results.LastPerKey(oldLoads, lk) {
		oldL[lk(l)] = l
	}
	for _, n := range results.LastPerKey(newLoads, lk) {
		o, ok := oldL[lk(n)]
		if !ok || !verdict.keepLoad(n.Backend, n.Scale) {
			continue
		}
		what := "bulk_load " + n.Backend + " " + n.Scale
		switch {
		case n.Ceiling && !o.Ceiling:
			verdict.Findings = append(verdict.Findings, Finding{Kind: KindLoadCeiling, What: what, Old: o.DatomsPerS, New: n.DatomsPerS})
		case !n.Ceiling && !o.Ceiling && o.DatomsPerS > 0 && n.DatomsPerS < o.DatomsPerS*down:
			if metrics {
				verdict.Findings = append(verdict.Findings, Finding{Kind: KindLoadRate, What: what, Old: o.DatomsPerS, New: n.DatomsPerS, Pct: pct(o.DatomsPerS, n.DatomsPerS)})
			} else {
				verdict.Notes = append(verdict.Notes, fmt.Sprintf("%s: datoms/s %s -> %s (%+.1f%%), one load per run: too few to decide",
					what, results.Thousands(int64(math.Round(o.DatomsPerS))), results.Thousands(int64(math.Round(n.DatomsPerS))), pct(o.DatomsPerS, n.DatomsPerS)))
			}
		}
	}
	return applyRules(verdict, oldRun, newRun)
}

func pct(old, new float64) float64 { return 100 * (new - old) / old }
