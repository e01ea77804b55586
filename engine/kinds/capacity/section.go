package capacity

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// The "where it falls over" section of summary.md and report.html: the
// table of capacity searches (capacity.csv, logs/capacity-probes.csv),
// per rate search the achieved rate and the percentile against the
// offered rate, and each clients search's probes as a curve for the
// report's scalability fit.

func init() {
	report.RegisterSection(report.KindSection{Name: OutputName, Markdown: writeMarkdown, HTML: writeHTML, Curves: curves})
}

// fitProbes is what a clients search's curve was fitted to.
const fitProbes = "capacity probes"

func writeMarkdown(b *bytes.Buffer, r *results.Run) {
	c := Of(r)
	if len(c.Rows) == 0 {
		return
	}
	b.WriteString("## Where it falls over\n\n")
	b.WriteString("The highest open-loop rate that kept the service level (capacity.csv; for a clients search the most clients before the percentile broke or throughput stopped growing), its 95% interval from repeated bisections at the edge, the bound that broke first past it, and the knee: the highest rate whose percentile stayed within twice its value at the lowest rate probed. Every probe is in " + CapacityProbesFile + ".\n\n")
	capacityTable(c).Markdown(b)
	if t := whyBroke(r, c); len(t.Rows) > 0 {
		b.WriteString("\n" + whyIntro)
		t.Markdown(b)
	}
}

// whyIntro introduces the breaking points' reasons.
const whyIntro = "Why each search broke where it did: the first probe past the capacity against the last within it, what moved between them (" + CapacityProbesFile + "), then what the database said during the one against the other (its wait events, blocks read and hit, execution, planning and round trip, rows; ranked as compare ranks two runs; every fact in " + CapacityEvidenceFile + ").\n\n"

func writeHTML(p report.HTMLPage, r *results.Run) {
	c := Of(r)
	if len(c.Rows) == 0 {
		return
	}
	p.Section("capacity", "Where it falls over", func() {
		p.Table(capacityTable(c))
		if t := whyBroke(r, c); len(t.Rows) > 0 {
			p.Table(t)
		}
		var cs []chart.Chart
		for _, row := range c.Rows {
			if row.Unit != UnitClients {
				cs = append(cs, probeCharts(row, probesOf(c.Probes, row))...)
			}
		}
		p.Charts(cs)
	})
}

// curves are the clients searches' probes: every probe is a point
// (clients, achieved ops/s), the repeated ones at the edge too, since
// each is a measurement of its own.
func curves(r *results.Run) []report.Curve {
	c := Of(r)
	var out []report.Curve
	for _, row := range c.Rows {
		if row.Unit != UnitClients {
			continue
		}
		var pts []usl.Point
		for _, p := range c.Probes {
			// A clients search's probes carry their client count and no rate.
			if p.Scenario == row.Scenario && p.Backend == row.Backend && p.Scale == row.Scale && p.Op == row.Op && p.Rate == 0 && p.Clients > 0 && p.Achieved > 0 {
				pts = append(pts, usl.Point{N: float64(p.Clients), X: p.Achieved})
			}
		}
		out = append(out, report.Curve{Scenario: row.Scenario, Backend: row.Backend, Scale: row.Scale, Op: row.Op, From: fitProbes, Points: pts})
	}
	return out
}

// knee is the highest probed rate at which the percentile stayed within
// twice its value at the lowest rate probed, among the rates that held:
// where latency starts to climb, below where the service level breaks.
func knee(probes []CapacityProbeRow) float64 {
	var ps []CapacityProbeRow
	for _, p := range probes {
		if !math.IsNaN(p.PctlMs) { // a probe that completed no call has no percentile
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Rate < ps[j].Rate })
	if len(ps) == 0 || ps[0].PctlMs <= 0 {
		return math.NaN()
	}
	base, k := ps[0].PctlMs, math.NaN()
	for _, p := range ps {
		if p.Held && p.PctlMs <= 2*base {
			k = p.Rate
		}
	}
	return k
}

func probesOf(all []CapacityProbeRow, c CapacityRow) []CapacityProbeRow {
	var out []CapacityProbeRow
	for _, p := range all {
		// A clients search's probes are at their own client counts.
		if p.Scenario == c.Scenario && p.Backend == c.Backend && p.Scale == c.Scale && p.Op == c.Op && (p.Clients == c.Clients || c.Unit == UnitClients) {
			out = append(out, p)
		}
	}
	return out
}

func fmtInterval(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return report.FormatRate(lo) + " to ?"
	}
	return report.FormatRate(lo) + " to " + report.FormatRate(hi)
}

func fmtOptRate(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return report.FormatRate(v)
}

func capacityTable(c *Searches) report.Table {
	t := report.Table{Head: []string{"backend", "scale", "scenario", "clients", "capacity", "95% interval", "broke first", "knee ops/s", "service level", "probes", "s"},
		Right: []bool{false, false, false, true, true, true, false, true, false, true, true}}
	for _, r := range c.Rows {
		broke := r.LimitedBy
		if r.BudgetSpent {
			broke += " (budget spent)"
		}
		kneeRate, clients := fmtOptRate(knee(probesOf(c.Probes, r))), strconv.Itoa(r.Clients)
		if r.Unit == UnitClients {
			kneeRate, clients = "-", "searched"
		}
		capacity := report.FormatRate(r.Capacity) + " " + r.Unit
		switch {
		case r.LimitedBy == "undecided":
			// The passes' edges disagree (the run's log says how): no capacity.
			capacity, broke = "cannot decide", "undecided: the passes' edges disagree, their interval reaches 0"
		case math.IsNaN(r.Capacity):
			capacity = "unknown"
		}
		t.Rows = append(t.Rows, []string{r.Backend, r.Scale, r.Scenario, clients, capacity, fmtInterval(r.Low, r.High),
			broke, kneeRate, r.ServiceLevel, strconv.Itoa(r.Probes), report.FormatSecs(r.Seconds, 1)})
	}
	return t
}

var levelMs = regexp.MustCompile(`^p([0-9.]+)<=([0-9.]+)ms`)

func probeCharts(row CapacityRow, probes []CapacityProbeRow) []chart.Chart {
	ps := slices.Clone(probes)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Rate < ps[j].Rate })
	name := fmt.Sprintf("%s %s %s", row.Scenario, row.Backend, row.Scale)
	thr := chart.Chart{Title: name + ": achieved against offered rate", XLabel: "offered ops/s", YLabel: "ops/s", LogX: true, LogY: true}
	lat := chart.Chart{Title: name + ": percentile against offered rate", XLabel: "offered ops/s", YLabel: "ms", LogX: true, LogY: true}
	ach, off := chart.Series{Name: "achieved"}, chart.Series{Name: "offered", Dash: 1}
	pctl := chart.Series{Name: "percentile"}
	for _, p := range ps {
		ach.Points = append(ach.Points, chart.Point{X: p.Rate, Y: p.Achieved})
		off.Points = append(off.Points, chart.Point{X: p.Rate, Y: p.Rate})
		if p.PctlMs > 0 {
			pctl.Points = append(pctl.Points, chart.Point{X: p.Rate, Y: p.PctlMs})
		}
	}
	thr.Series = []chart.Series{ach, off}
	lat.Series = []chart.Series{pctl}
	if m := levelMs.FindStringSubmatch(row.ServiceLevel); m != nil && len(ps) > 0 {
		bound, _ := strconv.ParseFloat(m[2], 64)
		pctl.Name = "p" + m[1]
		lat.Series = []chart.Series{pctl, {Name: "service level", Dash: 2, Points: []chart.Point{{X: ps[0].Rate, Y: bound}, {X: ps[len(ps)-1].Rate, Y: bound}}}}
	}
	return []chart.Chart{thr, lat}
}
