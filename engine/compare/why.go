package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Why is the evidence that moved with one point's verdict: Reasons ranked
// most telling first (the plan, then where the time went, the cache, wait
// events, rows, noise); none is "no evidence moved".
type Why struct {
	What  string // the point, as Key.String
	Key   results.Key
	Moved string // the verdict that moved: "p50 REGRESSION", "ops/s improvement"
	// Changed is what the two runs' env.txt says differs for this point
	// (a setting of its backend, a variable, the spec): known, not
	// inferred, so it is shown before the ranked evidence rather than
	// ranked among it.
	Changed []string
	Reasons []string
	// Backends are OLD's and NEW's backends where they are not
	// Key.Backend: two variants of one run, whose plans are each
	// backend's own.
	Backends [2]string
}

// NoEvidenceMoved is said of a point none of whose evidence moved.
const NoEvidenceMoved = report.NoEvidenceMoved

// Moved lists the points whose verdict moved, each once, in the order
// first met: a metric's regression or improvement under the statistical
// method, a threshold finding on a point's metric or errors.
func (r Verdict) Moved() []Why {
	var out []Why
	seen := map[string]int{}
	keys := map[string]results.Key{}
	if r.newRun != nil {
		for _, rows := range [][]results.Row{r.newRun.Timings, r.newRun.Raw} {
			for _, row := range rows {
				keys[row.Key().String()] = row.Key()
			}
		}
	}
	add := func(what, moved string) {
		if i, ok := seen[what]; ok {
			out[i].Moved += ", " + moved
			return
		}
		seen[what] = len(out)
		out = append(out, Why{What: what, Key: keys[what], Moved: moved})
	}
	for _, v := range r.Verdicts {
		if v.Outcome == OutRegression || v.Outcome == OutImprovement {
			add(v.What, v.Metric+" "+v.Outcome)
		}
	}
	for _, f := range r.Findings {
		switch f.Kind {
		case KindP50, KindP99, KindThroughput, KindErrors:
			if f.Stat == nil {
				add(f.What, f.Kind+" REGRESSION")
			}
		}
	}
	return out
}

func writeWhy(b *strings.Builder, ws []Why) {
	for _, w := range ws {
		fmt.Fprintf(b, "why %s (%s):\n", w.What, w.Moved)
		for _, c := range w.Changed {
			b.WriteString("  changed between the runs: " + c + "\n")
		}
		if len(w.Reasons) == 0 {
			b.WriteString("  " + NoEvidenceMoved + "\n")
		}
		for i, r := range w.Reasons {
			fmt.Fprintf(b, "  %d. %s\n", i+1, r)
		}
	}
}

// WhyMarkdown writes the reasons for a pull request: a heading and, per
// point that moved, its ranked evidence.
func (r Verdict) WhyMarkdown() string {
	if len(r.Why) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Why\n\n")
	for _, w := range r.Why {
		fmt.Fprintf(&b, "**%s** (%s)\n\n", w.What, w.Moved)
		for _, c := range w.Changed {
			fmt.Fprintf(&b, "Changed between the runs: %s\n\n", strings.ReplaceAll(c, "|", `\|`))
		}
		if len(w.Reasons) == 0 {
			b.WriteString("- " + NoEvidenceMoved + "\n")
		}
		for i, rs := range w.Reasons {
			fmt.Fprintf(&b, "%d. %s\n", i+1, strings.ReplaceAll(rs, "|", `\|`))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// whyTable is compare.html's table of reasons: a row per reason, ranked.
func whyTable(ws []Why) report.Table {
	t := report.Table{Head: []string{"point", "moved", "rank", "evidence"}, Right: []bool{false, false, true, false}}
	for _, w := range ws {
		for _, c := range w.Changed {
			t.Rows = append(t.Rows, []string{w.What, w.Moved, "-", "changed between the runs: " + c})
		}
		if len(w.Reasons) == 0 {
			t.Rows = append(t.Rows, []string{w.What, w.Moved, "-", NoEvidenceMoved})
		}
		for i, r := range w.Reasons {
			t.Rows = append(t.Rows, []string{w.What, w.Moved, strconv.Itoa(i + 1), r})
		}
	}
	return t
}

// ErrNoEvidence is an explainer's answer for a point one of whose runs
// recorded no evidence at all (a run from before evidence was kept): it
// has no why, rather than a "no evidence moved" it cannot know.
var ErrNoEvidence = errors.New("no evidence recorded")

// Explainer fills w.Reasons from what the two runs' evidence says about
// w.Key, ranked; verdict is the verdict so far (its noise, for one).
type Explainer func(w *Why, verdict *Verdict, oldRun, newRun *results.Run) error

var explainer Explainer

// RegisterExplainer sets what explains the points that moved; the
// evidence package registers it, as it owns the evidence's files. A
// second registration is a programming error: it panics, at init.
func RegisterExplainer(e Explainer) {
	if explainer != nil {
		panic("compare: explainer registered twice")
	}
	explainer = e
}

// explainMoved lists the evidence beside every verdict that moved, once
// every verdict is in; variantOf are the two backends of variants.
func explainMoved(verdict *Verdict, oldRun, newRun *results.Run, variantOf [2]string) error {
	if explainer == nil {
		return nil
	}
	var whys []Why
	for _, w := range verdict.Moved() {
		w.Backends = variantOf
		if variantOf == [2]string{} {
			w.Changed = changedFor(verdict.Differences, w.Key)
		}
		switch err := explainer(&w, verdict, oldRun, newRun); {
		case errors.Is(err, ErrNoEvidence):
			continue
		case err != nil:
			return fmt.Errorf("compare: why %s: %w", w.What, err)
		}
		whys = append(whys, w)
	}
	verdict.Why = whys
	return nil
}

// Markdown is the verdict for a pull request: its headline, the text
// verdict as a block, then why each point that moved did.
func (r Verdict) Markdown() string {
	var b strings.Builder
	switch u := r.Undecided(); {
	case r.Refused:
		b.WriteString("**compare: not comparable**\n\n")
	case r.Regressed():
		fmt.Fprintf(&b, "**compare: %s**\n\n", report.Plural(len(r.Findings), "regression", "regressions"))
	case u > 0:
		fmt.Fprintf(&b, "**compare: no regressions found, but %d metrics cannot be decided**\n\n", u)
	default:
		b.WriteString("**compare: no regressions**\n\n")
	}
	b.WriteString("```text\n")
	b.WriteString(strings.ReplaceAll(r.String(), "```", "'''"))
	b.WriteString("```\n\n")
	b.WriteString(r.WhyMarkdown())
	return b.String()
}

// changedFor lists the differences between two runs' env.txt that apply
// to the point k: its backend's own at its scale (a setting, the driver's
// version or options) and those of the whole run (a variable, the spec,
// the sampling). Variants of one run differ by backend by design and get
// none.
func changedFor(diffs []Difference, k results.Key) []string {
	var out []string
	own := "backend." + k.Backend + "." + k.Scale + "."
	for _, d := range diffs {
		name := d.Key
		if p, ok := backendPrefix(d.Key); ok {
			if p != own {
				continue
			}
			name = strings.Replace(strings.TrimPrefix(d.Key, p), ".", " ", 1)
		}
		old, nw := d.Old, d.New
		if strings.HasSuffix(d.Key, "sha256") {
			old, nw = shortDigest(old), shortDigest(nw)
		}
		out = append(out, fmt.Sprintf("%s %s -> %s", name, old, nw))
	}
	return out
}

// shortDigest keeps a digest's first 12 characters: enough to tell two
// specs apart in a reason.
func shortDigest(s string) string {
	if len(s) > 12 && s != absent {
		return s[:12]
	}
	return s
}
