package report

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// KindSection is the part of summary.md and report.html that a kind with
// files of its own (capacity's "where it falls over") renders from the
// loaded run, registered from the kind's package at init. The sections
// follow the overview in registration order, before the scalability fit.
type KindSection struct {
	Name string
	// Markdown writes the section to summary.md: nothing when the run has
	// none of the kind's rows.
	Markdown func(b *bytes.Buffer, r *results.Run)
	// HTML adds the section to report.html, likewise.
	HTML func(p HTMLPage, r *results.Run)
	// Curves are the kind's throughput against clients that the
	// scalability fit takes beside the closed-loop sweeps (nil: none).
	Curves func(r *results.Run) []Curve
}

// Curve is one series of throughput against clients to fit the
// Universal Scalability Law to: From says what was measured.
type Curve struct {
	Scenario, Backend, Scale, Op string
	From                         string
	Points                       []usl.Point
}

var kindSections []KindSection

// RegisterSection adds s to every summary.md and report.html. A name
// registered twice, or a section without a name, is a programming error:
// it panics, at init.
func RegisterSection(s KindSection) {
	if s.Name == "" {
		panic(fmt.Sprintf("report: section %+v lacks a name", s))
	}
	if slices.ContainsFunc(kindSections, func(x KindSection) bool { return x.Name == s.Name }) {
		panic("report: section " + s.Name + " registered twice")
	}
	kindSections = append(kindSections, s)
}

// HTMLPage is what a kind's section adds to report.html.
type HTMLPage struct{ b *htmlBuilder }

// Section adds a section; fill adds its content.
func (p HTMLPage) Section(id, title string, fill func()) { p.b.section(id, title, fill) }

// Table adds a table to the current section.
func (p HTMLPage) Table(t Table) { p.b.table(t.Head, t.Right, t.Rows) }

// Charts adds charts to the current section.
func (p HTMLPage) Charts(cs []chart.Chart) { p.b.charts(cs) }

// HTML adds h, markup a section drew itself (a chart of its own kind),
// to the current section.
func (p HTMLPage) HTML(h template.HTML) { p.b.add(h, nil) }

// Markdown writes t as summary.md's tables are written.
func (t Table) Markdown(b *bytes.Buffer) {
	tt := table{head: t.Head, right: t.Right, rows: t.Rows}
	tt.write(b)
}
