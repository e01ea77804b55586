package compare

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The compare page's sections; the page around them is report.Page.
// Every literal newline is output.
const sectionTemplates = `{{define "meta"}}<p class="meta">{{.Old}} &rarr; {{.New}}</p>{{end}}
{{- define "verdict"}}{{with .Head}}<p class="verdict {{.Class}}">{{.Text}}</p>
{{end}}{{if .Noise}}<p class="meta">Machine noise: OLD {{.NoiseOld}}; NEW {{.NoiseNew}}.</p>
{{end}}{{with .NoiseReason}}<p class="verdict undecided">The machine's noise differs: {{.}}.</p>
{{end}}<p class="meta">OLD {{.Old}}, NEW {{.New}}; {{.Method}}; {{.Compared}} points compared, {{.OnlyNew}} only in NEW.</p>
{{with .RunVariation}}<p class="meta">{{.}}</p>
{{end}}{{end}}
{{- define "list"}}<ul>
{{range .}}<li>{{.}}</li>
{{end}}</ul>
{{end}}
{{- define "verdicts"}}<div class="scroll"><table>
<thead><tr><th>point</th><th>metric</th><th class="num">OLD median</th><th class="num">NEW median</th><th class="num">change</th><th>interval</th><th class="num">p</th><th>outcome</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{.What}}</td><td>{{.Metric}}</td><td class="num">{{.Old}}</td><td class="num">{{.New}}</td><td class="num">{{.Change}}</td><td>{{.Interval}}</td><td class="num">{{.P}}</td><td class="{{.Class}}">{{.Outcome}}</td></tr>
{{end}}</tbody></table></div>
{{end}}
{{- define "sidebyside"}}<div class="scroll"><table>
<thead><tr><th>point</th><th class="num">p50 OLD</th><th class="num">p50 NEW</th><th class="num">p99 OLD</th><th class="num">p99 NEW</th><th class="num">ops/s OLD</th><th class="num">ops/s NEW</th><th>change</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{.Point}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}<td class="{{.Class}}">{{.Mark}}</td></tr>
{{end}}</tbody></table></div>
{{end}}`

var sections = template.Must(template.New("compare").Parse(sectionTemplates))

// verdictView is the verdict section: the outcome in one line, the
// machine's noise and how the runs were compared.
type verdictView struct {
	Head               struct{ Class, Text string }
	Noise              bool
	NoiseOld, NoiseNew string
	NoiseReason        string
	Old, New, Method   string
	Compared, OnlyNew  int
	RunVariation       string // which run-to-run variation the verdicts allow for
}

// metricRow is one row of the per-metric table.
type metricRow struct {
	What, Metric, Old, New, Change, Interval, P, Class, Outcome string
}

// pointRow is one row of the side-by-side table.
type pointRow struct {
	Point       string
	Cells       [6]string // p50, p99, ops/s: OLD and NEW each
	Class, Mark string
}

// HTML writes a comparison as one self-contained page (the report's
// CSS, no script, no network): what makes the runs differ, the verdict per
// point and metric with regressions and improvements marked, the points
// left out because their definitions changed, and every point's timings of
// both runs side by side with the change.
func HTML(verdict Verdict, w io.Writer) error {
	var secs []report.Section
	add := func(id, title, tmpl string, data any) error {
		body, err := report.Render(sections, tmpl, data)
		if err != nil {
			return err
		}
		secs = append(secs, report.Section{ID: id, Title: title, Body: body})
		return nil
	}
	addTable := func(id, title string, t report.Table) error {
		body, err := report.HTMLTable(t)
		if err != nil {
			return err
		}
		secs = append(secs, report.Section{ID: id, Title: title, Body: body})
		return nil
	}
	if err := add("verdict", "Verdict", "verdict", verdictOf(verdict)); err != nil {
		return err
	}
	if len(verdict.Differences) > 0 {
		t := report.Table{Head: []string{"key", "OLD", "NEW"}}
		for _, d := range verdict.Differences {
			t.Rows = append(t.Rows, []string{d.Key, d.Old, d.New})
		}
		if err := addTable("differences", "What differs between the runs", t); err != nil {
			return err
		}
	}
	if len(verdict.NotCompared) > 0 {
		if err := add("notcompared", "Changed definitions, not compared", "list", verdict.NotCompared); err != nil {
			return err
		}
	}
	if len(verdict.Verdicts) > 0 {
		if err := add("verdicts", "Per point and metric", "verdicts", metricRows(verdict.Verdicts)); err != nil {
			return err
		}
	}
	t := report.Table{Head: []string{"kind", "what", "OLD", "NEW", "change"}, Right: []bool{false, false, true, true, true}}
	for _, f := range verdict.Findings {
		if f.Stat == nil {
			t.Rows = append(t.Rows, []string{f.Kind, f.What, strconv.FormatFloat(f.Old, 'f', -1, 64), strconv.FormatFloat(f.New, 'f', -1, 64), fmt.Sprintf("%+.1f%%", f.Pct)})
		}
	}
	if len(t.Rows) > 0 {
		if err := addTable("findings", "Regressions", t); err != nil {
			return err
		}
	}
	if len(verdict.Why) > 0 {
		if err := addTable("why", "Why: the evidence that moved", whyTable(verdict.Why)); err != nil {
			return err
		}
	}
	// Two backends of one run (Variants) have no table of their own here:
	// their verdicts above are per point already.
	if !verdict.Refused && !verdict.Variants && verdict.oldRun != nil && verdict.newRun != nil {
		if err := add("sidebyside", "Timings side by side", "sidebyside", pointRows(verdict, verdict.oldRun.Timings, verdict.newRun.Timings)); err != nil {
			return err
		}
	}
	if len(verdict.Notes) > 0 {
		if err := add("notes", "Notes", "list", verdict.Notes); err != nil {
			return err
		}
	}
	meta, err := report.Render(sections, "meta", verdict)
	if err != nil {
		return err
	}
	return report.WritePage(w, report.Page{Title: "mentat-spec compare", Meta: meta, Sections: secs})
}

func fmtPct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func verdictOf(verdict Verdict) verdictView {
	v := verdictView{Old: verdict.Old, New: verdict.New, Compared: verdict.Compared, OnlyNew: verdict.OnlyNew, NoiseReason: verdict.NoiseReason}
	switch {
	case verdict.Refused:
		v.Head.Class, v.Head.Text = "fail", "Refused: the runs differ in what they measured (below); rerun compare with -force to compare them anyway."
	case verdict.Regressed():
		v.Head.Class, v.Head.Text = "fail", fmt.Sprintf("%d regression(s).", len(verdict.Findings))
	case verdict.Undecided() > 0:
		// No verdict is not a pass: never shown in green.
		v.Head.Class, v.Head.Text = "undecided", fmt.Sprintf("Cannot decide %d of %d metrics (%s): no regression was found, which is not a pass.",
			verdict.Undecided(), len(verdict.Verdicts), undecidedWhy(verdict))
	default:
		v.Head.Class, v.Head.Text = "pass", "No regression."
	}
	if verdict.NoiseOld.Rows > 0 || verdict.NoiseNew.Rows > 0 {
		v.Noise, v.NoiseOld, v.NoiseNew = true, verdict.NoiseOld.String(), verdict.NoiseNew.String()
	}
	v.Method = fmt.Sprintf("threshold %s%%", fmtPct(verdict.ThresholdPct))
	if verdict.Method == MethodStats {
		v.Method = fmt.Sprintf("statistics over reps (Mann-Whitney U at alpha %s), threshold %s%%", strconv.FormatFloat(verdict.Alpha, 'f', -1, 64), fmtPct(verdict.ThresholdPct))
		var b strings.Builder
		writeRunVariation(&b, verdict)
		v.RunVariation = strings.TrimSpace(b.String())
	}
	return v
}

func metricRows(vs []MetricVerdict) []metricRow {
	var rows []metricRow
	for _, v := range vs {
		interval := "—"
		if !math.IsInf(v.Lo, 0) && !math.IsInf(v.Hi, 0) && !math.IsNaN(v.Lo) {
			interval = fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*(v.Lo-1), 100*(v.Hi-1))
		}
		change := "—"
		if !math.IsNaN(v.Ratio) {
			change = fmt.Sprintf("%+.1f%%", v.Pct())
		}
		outcome := v.Outcome
		if v.Reason != "" {
			outcome += ": " + v.Reason
		}
		what := v.What
		if v.Order != nil {
			what += " (" + v.Order.label() + ")"
		}
		rows = append(rows, metricRow{What: what, Metric: v.Metric, Old: report.FormatMs(v.OldMedian), New: report.FormatMs(v.NewMedian),
			Change: change, Interval: interval, P: fmt.Sprintf("%.3f", v.P), Class: outcomeClass(v.Outcome), Outcome: outcome})
	}
	return rows
}

func outcomeClass(outcome string) string {
	switch outcome {
	case OutRegression:
		return "fail"
	case OutImprovement:
		return "pass"
	case OutUndecided, OutNoisy:
		return "undecided"
	}
	return "skip"
}

// undecidedWhy names what kept the undecided metrics from a verdict.
func undecidedWhy(verdict Verdict) string {
	var few, noisy bool
	for _, v := range verdict.Verdicts {
		few = few || v.Outcome == OutUndecided
		noisy = noisy || v.Outcome == OutNoisy
	}
	switch {
	case verdict.undecidedRows() > 0 && !few && !noisy:
		return ruleUndecidedWhy(verdict)
	case few && noisy:
		return "too few reps, and the machine's noise differed"
	case noisy:
		return "the machine's noise differed between the runs"
	}
	return "too few reps"
}

// pointRows is every point of either run with OLD's and NEW's p50, p99
// and throughput; a point judged a regression or improvement is marked.
func pointRows(verdict Verdict, oldRows, newRows []results.Row) []pointRow {
	marks := map[string]string{}
	for _, v := range verdict.Verdicts {
		if v.Outcome == OutRegression || (v.Outcome == OutImprovement && marks[v.What] != OutRegression) {
			marks[v.What] = v.Outcome
		}
	}
	for _, f := range verdict.Findings {
		marks[f.What] = OutRegression
	}
	oldBy := map[results.Key]results.Row{}
	for _, r := range results.LastPerKey(oldRows, results.Row.Key) {
		oldBy[r.Key()] = r
	}
	var out []pointRow
	row := func(k results.Key, o, n *results.Row) {
		cell := func(r *results.Row, f func(results.Row) string) string {
			if r == nil {
				return "—"
			}
			return f(*r)
		}
		p50 := func(r results.Row) string { return report.FormatMs(r.P50Ms) }
		p99 := func(r results.Row) string { return report.FormatMs(r.P99Ms) }
		ops := func(r results.Row) string { return report.FormatRate(r.Throughput) }
		mark := marks[k.String()]
		switch {
		case verdict.comparable != nil && !verdict.comparable(k):
			mark = "changed definition"
		case o == nil:
			mark = "only in NEW"
		case n == nil:
			mark = "only in OLD"
		}
		out = append(out, pointRow{Point: k.String(), Cells: [6]string{cell(o, p50), cell(n, p50), cell(o, p99), cell(n, p99), cell(o, ops), cell(n, ops)},
			Class: outcomeClass(mark), Mark: mark})
	}
	seen := map[results.Key]bool{}
	for _, n := range results.LastPerKey(newRows, results.Row.Key) {
		k := n.Key()
		seen[k] = true
		if o, ok := oldBy[k]; ok {
			row(k, &o, &n)
		} else {
			row(k, nil, &n)
		}
	}
	for _, o := range results.LastPerKey(oldRows, results.Row.Key) {
		if !seen[o.Key()] {
			row(o.Key(), &o, nil)
		}
	}
	return out
}
