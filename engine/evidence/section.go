package evidence

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The "where the time goes" section of summary.md and report.html: each
// point's mean latency per call split into server execution, planning,
// the round-trip floor and the rest (latency-split.csv), a table and, in
// report.html, a stacked bar per point.

func init() {
	report.RegisterSection(report.KindSection{Name: OutputName, Markdown: writeMarkdown, HTML: writeHTML})
}

const sectionIntro = "Each point's mean latency per call (clients over throughput) split into what the database says it spent executing and planning (its own counters over the point, per call of the point's most-called statement), the connection's round-trip floor (the median of an empty statement) and the rest: queueing, the driver and the client. A part the database does not expose is unknown and counted in the rest, which then says so. Every fact is in " + results.EvidenceFile + ", every split in " + results.SplitFile + ".\n\n"

func writeMarkdown(b *bytes.Buffer, r *results.Run) {
	l := Of(r)
	if len(l.Splits) == 0 {
		return
	}
	b.WriteString("## Where the time goes\n\n")
	b.WriteString(sectionIntro)
	splitTable(l.Splits).Markdown(b)
	b.WriteString("\n")
}

func writeHTML(p report.HTMLPage, r *results.Run) {
	l := Of(r)
	if len(l.Splits) == 0 {
		return
	}
	p.Section("time-split", "Where the time goes", func() {
		p.Table(splitTable(l.Splits))
		p.HTML(splitBars(l.Splits))
	})
}

// msOrUnknown is a part of a split: "unknown" where it was not measured.
func msOrUnknown(v float64) string {
	if math.IsNaN(v) {
		return "unknown"
	}
	return report.FormatMs(v)
}

// pointName names a split's point, and its rep where reps interleave.
func pointName(s results.SplitRow) string {
	n := "p" + strconv.Itoa(s.Point)
	if s.Rep > 0 {
		n += " rep " + strconv.Itoa(s.Rep)
	}
	return n
}

func splitTable(splits []results.SplitRow) report.Table {
	t := report.Table{Head: []string{"backend", "scale", "scenario", "point", "clients", "observed ms", "execution ms", "planning ms", "round-trip floor ms", "rest ms", "engine CPU ms/call"},
		Right: []bool{false, false, false, false, true, true, true, true, true, true, true}}
	for _, s := range splits {
		rest := msOrUnknown(s.RestMs)
		if !math.IsNaN(s.RestMs) && s.RestIncludes != "" {
			rest += " (with " + strings.ReplaceAll(s.RestIncludes, "+", ", ") + ")"
		}
		t.Rows = append(t.Rows, []string{s.Backend, s.Scale, s.Scenario, pointName(s), strconv.Itoa(s.Clients),
			msOrUnknown(s.ObservedMs), msOrUnknown(s.ServerExecMs), msOrUnknown(s.PlanningMs), msOrUnknown(s.RoundTripMs), rest, msOrUnknown(s.EngineCPUMs)})
	}
	return t
}

// part is one segment of a point's bar.
type part struct {
	name  string
	class string // the chart palette's color class
	ms    float64
}

// parts are the known segments of s in drawing order; the rest absorbs
// the unknown ones and is clamped at 0 (a floor above the observed time
// leaves nothing to draw, not a negative bar).
func parts(s results.SplitRow) []part {
	ps := []part{{"execution", "s0", s.ServerExecMs}, {"planning", "s1", s.PlanningMs}, {"round-trip floor", "s2", s.RoundTripMs}, {"rest", "s7", s.RestMs}}
	var out []part
	for _, p := range ps {
		if !math.IsNaN(p.ms) && p.ms > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Geometry of the bars, in the SVG's own units (it scales to the page).
const (
	barLabelW = 260.0
	barW      = 600.0
	barH      = 18.0
	barGap    = 10.0
	barTop    = 34.0
)

// splitBars draws each point's observed latency as one bar of 100%,
// stacked by its parts, its milliseconds beside it: the shares are what
// compare across points of very different latencies.
func splitBars(splits []results.SplitRow) template.HTML {
	var rows []results.SplitRow
	for _, s := range splits {
		if !math.IsNaN(s.ObservedMs) && s.ObservedMs > 0 {
			rows = append(rows, s)
		}
	}
	if len(rows) == 0 {
		return ""
	}
	width := barLabelW + barW + 110
	height := barTop + float64(len(rows))*(barH+barGap) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="split" viewBox="0 0 %g %g" width="100%%" role="img"><title>Where the time goes, per point</title>`, width, height)
	// The legend, one swatch per part.
	x := barLabelW
	for _, p := range []part{{"execution", "s0", 0}, {"planning", "s1", 0}, {"round-trip floor", "s2", 0}, {"rest (and what is unknown)", "s7", 0}} {
		fmt.Fprintf(&b, `<rect class="swatch %s" x="%g" y="8" width="12" height="12"/><text class="legend" x="%g" y="18">%s</text>`, p.class, x, x+16, template.HTMLEscapeString(p.name))
		x += 16 + 7*float64(len(p.name)) + 18
	}
	for i, s := range rows {
		y := barTop + float64(i)*(barH+barGap)
		name := fmt.Sprintf("%s %s %s %s", s.Backend, s.Scale, s.Scenario, pointName(s))
		fmt.Fprintf(&b, `<text class="tick" x="%g" y="%g" text-anchor="end">%s</text>`, barLabelW-8, y+barH-5, template.HTMLEscapeString(name))
		x := barLabelW
		for _, p := range parts(s) {
			w := math.Min(barW*p.ms/s.ObservedMs, barLabelW+barW-x)
			if w <= 0 {
				break
			}
			fmt.Fprintf(&b, `<rect class="bar part %s" x="%.1f" y="%g" width="%.1f" height="%g"><title>%s: %s ms of %s</title></rect>`,
				p.class, x, y, w, barH, template.HTMLEscapeString(name+" "+p.name), report.FormatMs(p.ms), report.FormatMs(s.ObservedMs))
			x += w
		}
		fmt.Fprintf(&b, `<text class="tick" x="%g" y="%g">%s ms</text>`, barLabelW+barW+8, y+barH-5, report.FormatMs(s.ObservedMs))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
