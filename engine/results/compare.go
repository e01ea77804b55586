package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
	What     string // the point: "scenario backend scale clients=N op", or less for ceilings and loads
	Old, New float64
	Pct      float64 // change in percent where it applies
}

// Report is the outcome of Compare. String prints it as text.
type Report struct {
	Old, New     string
	ThresholdPct float64
	Compared     int // points present in both runs
	OnlyNew      int // points only in NEW (not regressions)
	Findings     []Finding
}

// Regressed reports whether there is any regression.
func (r Report) Regressed() bool { return len(r.Findings) > 0 }

// Write prints the report as text.
func (r Report) Write(w io.Writer) error {
	_, err := io.WriteString(w, r.String())
	return err
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compare %s -> %s (threshold %s%%)\n", r.Old, r.New, strconv.FormatFloat(r.ThresholdPct, 'f', -1, 64))
	fmt.Fprintf(&b, "%d points compared, %d only in NEW\n", r.Compared, r.OnlyNew)
	for _, f := range r.Findings {
		b.WriteString("REGRESSION ")
		b.WriteString(f.What)
		b.WriteString(": ")
		switch f.Kind {
		case KindP50, KindP99:
			fmt.Fprintf(&b, "%s %s -> %s ms (%+.1f%%)", f.Kind, fmtMs(f.Old), fmtMs(f.New), f.Pct)
		case KindThroughput:
			fmt.Fprintf(&b, "ops/s %s -> %s (%+.1f%%)", fmtRate(f.Old), fmtRate(f.New), f.Pct)
		case KindLoadRate:
			fmt.Fprintf(&b, "datoms/s %s -> %s (%+.1f%%)", fmtInt(int64(math.Round(f.Old))), fmtInt(int64(math.Round(f.New))), f.Pct)
		case KindErrors:
			fmt.Fprintf(&b, "errors %d -> %d", int64(f.Old), int64(f.New))
		case KindCeiling:
			fmt.Fprintf(&b, "now a ceiling (first call %s ms)", fmtMs(f.New))
		case KindLoadCeiling:
			b.WriteString("bulk load now hits the load cap")
		case KindMissing:
			b.WriteString("missing from NEW")
		}
		b.WriteString("\n")
	}
	if r.Regressed() {
		fmt.Fprintf(&b, "%d regressions\n", len(r.Findings))
	} else {
		b.WriteString("no regressions\n")
	}
	return b.String()
}

// Compare diffs the timings (and loads, when both have them) of two
// results directories as the seed's compare.py did: rows are matched on
// (scenario, backend, scale, clients, op); p50/p99 increases and
// throughput drops beyond thresholdPct, new errors, a scenario that became
// a ceiling and rows missing from NEW are regressions. Compare runs from
// the same kind of machine only.
func Compare(oldDir, newDir string, thresholdPct float64) (Report, error) {
	if math.IsNaN(thresholdPct) || thresholdPct < 0 {
		return Report{}, fmt.Errorf("results: compare: threshold %v%% must be >= 0", thresholdPct)
	}
	rep := Report{Old: oldDir, New: newDir, ThresholdPct: thresholdPct}
	oldRows, err := ReadTimings(oldDir)
	if err != nil {
		return rep, fmt.Errorf("compare OLD: %w", err)
	}
	newRows, err := ReadTimings(newDir)
	if err != nil {
		return rep, fmt.Errorf("compare NEW: %w", err)
	}
	oldRows, newRows = lastPerKey(oldRows, Row.Key), lastPerKey(newRows, Row.Key)

	type scenarioKey struct{ scenario, backend, scale string }
	sk := func(r Row) scenarioKey { return scenarioKey{r.Scenario, r.Backend, r.Scale} }
	oldByKey := map[Key]Row{}
	oldCeiling := map[scenarioKey]bool{}
	for _, r := range oldRows {
		oldByKey[r.Key()] = r
		if r.Op == "ceiling" {
			oldCeiling[sk(r)] = true
		}
	}
	newKeys := map[Key]bool{}
	newCeiling := map[scenarioKey]bool{}
	up := 1 + thresholdPct/100
	down := 1 - thresholdPct/100
	for _, n := range newRows {
		newKeys[n.Key()] = true
		if n.Op == "ceiling" {
			newCeiling[sk(n)] = true
			if !oldCeiling[sk(n)] {
				rep.Findings = append(rep.Findings, Finding{Kind: KindCeiling, What: n.Scenario + " " + n.Backend + " " + n.Scale, New: n.P50Ms})
			}
		}
		o, ok := oldByKey[n.Key()]
		if !ok {
			rep.OnlyNew++
			continue
		}
		rep.Compared++
		what := n.Key().String()
		if n.Op != "ceiling" {
			if o.P50Ms > 0 && n.P50Ms > o.P50Ms*up {
				rep.Findings = append(rep.Findings, Finding{KindP50, what, o.P50Ms, n.P50Ms, pct(o.P50Ms, n.P50Ms)})
			}
			if o.P99Ms > 0 && n.P99Ms > o.P99Ms*up {
				rep.Findings = append(rep.Findings, Finding{KindP99, what, o.P99Ms, n.P99Ms, pct(o.P99Ms, n.P99Ms)})
			}
			if o.Throughput > 0 && n.Throughput < o.Throughput*down {
				rep.Findings = append(rep.Findings, Finding{KindThroughput, what, o.Throughput, n.Throughput, pct(o.Throughput, n.Throughput)})
			}
		}
		if n.Errors > o.Errors {
			rep.Findings = append(rep.Findings, Finding{Kind: KindErrors, What: what, Old: float64(o.Errors), New: float64(n.Errors)})
		}
	}
	for _, o := range oldRows {
		// A scenario that became a ceiling lost its rows: reported once above.
		if !newKeys[o.Key()] && !newCeiling[sk(o)] {
			rep.Findings = append(rep.Findings, Finding{Kind: KindMissing, What: o.Key().String()})
		}
	}

	oldLoads, errOld := ReadLoads(oldDir)
	newLoads, errNew := ReadLoads(newDir)
	if err := errors.Join(optional(errOld), optional(errNew)); err != nil {
		return rep, fmt.Errorf("compare loads: %w", err)
	}
	type loadKey struct{ backend, scale string }
	lk := func(l LoadRow) loadKey { return loadKey{l.Backend, l.Scale} }
	oldL := map[loadKey]LoadRow{}
	for _, l := range lastPerKey(oldLoads, lk) {
		oldL[lk(l)] = l
	}
	for _, n := range lastPerKey(newLoads, lk) {
		o, ok := oldL[lk(n)]
		if !ok {
			continue
		}
		what := "bulk_load " + n.Backend + " " + n.Scale
		switch {
		case n.Ceiling && !o.Ceiling:
			rep.Findings = append(rep.Findings, Finding{Kind: KindLoadCeiling, What: what, Old: o.DatomsPerS, New: n.DatomsPerS})
		case !n.Ceiling && !o.Ceiling && o.DatomsPerS > 0 && n.DatomsPerS < o.DatomsPerS*down:
			rep.Findings = append(rep.Findings, Finding{KindLoadRate, what, o.DatomsPerS, n.DatomsPerS, pct(o.DatomsPerS, n.DatomsPerS)})
		}
	}
	return rep, nil
}

func pct(old, new float64) float64 { return 100 * (new - old) / old }
