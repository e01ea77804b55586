package report

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// The capacity reports: the "where it falls over" table of capacity
// searches (capacity.csv, logs/capacity-probes.csv) and the Universal
// Scalability Law fitted to every closed-loop sweep of four or more client
// counts, for summary.md and report.html. Sections a run has nothing for
// are left out.

// capacityReport is what a run's capacity files and sweeps hold.
type capacityReport struct {
	rows   []results.CapacityRow
	probes []results.CapacityProbeRow
	fits   []sweepFit
}

// sweepFit is the law fitted to one sweep, or to one clients search's
// probes.
type sweepFit struct {
	Scenario, Backend, Scale, Op string
	From                         string // what was fitted: fitSweep or fitProbes
	Fit                          *usl.Fit
}

const (
	fitSweep  = "sweep"
	fitProbes = "capacity probes"
)

func loadCapacityReport(r *results.Run) (capacityReport, error) {
	c := capacityReport{rows: r.Capacity, probes: r.CapacityProbes}
	c.fits = append(sweepFits(r.Points()), probeFits(c.rows, c.probes)...)
	return c, nil
}

// probeFits fits the law to each clients search's probes: every probe
// is a point (clients, achieved ops/s), the repeated ones at the edge
// too, since each is a measurement of its own.
func probeFits(rows []results.CapacityRow, probes []results.CapacityProbeRow) []sweepFit {
	var out []sweepFit
	for _, r := range rows {
		if r.Unit != results.UnitClients {
			continue
		}
		var pts []usl.Point
		for _, p := range probes {
			// A clients search's probes carry their client count and no rate.
			if p.Scenario == r.Scenario && p.Backend == r.Backend && p.Scale == r.Scale && p.Op == r.Op && p.Rate == 0 && p.Clients > 0 && p.Achieved > 0 {
				pts = append(pts, usl.Point{N: float64(p.Clients), X: p.Achieved})
			}
		}
		f, err := usl.FitPoints(pts)
		if err != nil {
			continue // fewer than four client counts probed
		}
		out = append(out, sweepFit{Scenario: r.Scenario, Backend: r.Backend, Scale: r.Scale, Op: r.Op, From: fitProbes, Fit: f})
	}
	return out
}

// sweepFits fits the law to every (scenario, backend, scale, op) of
// closed-loop rows with four or more client counts.
func sweepFits(timings []results.Row) []sweepFit {
	type key struct{ sc, be, scale, op string }
	pts := map[key][]usl.Point{}
	var order []key
	for _, r := range timings {
		if !measured(r) || strings.Contains(r.Op, "@") || r.Clients < 1 || r.Throughput <= 0 {
			continue
		}
		k := key{r.Scenario, r.Backend, r.Scale, r.Op}
		if _, ok := pts[k]; !ok {
			order = append(order, k)
		}
		pts[k] = append(pts[k], usl.Point{N: float64(r.Clients), X: r.Throughput})
	}
	var out []sweepFit
	for _, k := range order {
		f, err := usl.FitPoints(pts[k])
		if err != nil {
			continue // fewer than four client counts, or nothing to fit
		}
		out = append(out, sweepFit{Scenario: k.sc, Backend: k.be, Scale: k.scale, Op: k.op, From: fitSweep, Fit: f})
	}
	return out
}

// knee is the highest probed rate at which the percentile stayed within
// twice its value at the lowest rate probed, among the rates that held:
// where latency starts to climb, below where the service level breaks.
func knee(probes []results.CapacityProbeRow) float64 {
	var ps []results.CapacityProbeRow
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

func probesOf(all []results.CapacityProbeRow, c results.CapacityRow) []results.CapacityProbeRow {
	var out []results.CapacityProbeRow
	for _, p := range all {
		if p.Scenario == c.Scenario && p.Backend == c.Backend && p.Scale == c.Scale && p.Op == c.Op && p.Clients == c.Clients {
			out = append(out, p)
		}
	}
	return out
}

func fmtInterval(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return FormatRate(lo) + " to ?"
	}
	return FormatRate(lo) + " to " + FormatRate(hi)
}

func fmtOptRate(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return FormatRate(v)
}

// fmtSig is a parameter with four significant digits.
func fmtSig(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// writeCapacityMD writes the "where it falls over" and the scalability
// sections of summary.md.
func writeCapacityMD(b *bytes.Buffer, r *results.Run) error {
	c, err := loadCapacityReport(r)
	if err != nil {
		return err
	}
	if len(c.rows) > 0 {
		b.WriteString("## Where it falls over\n\n")
		b.WriteString("The highest open-loop rate that kept the service level (capacity.csv; for a clients search the most clients before the percentile broke or throughput stopped growing), its 95% interval from repeated bisections at the edge, the bound that broke first past it, and the knee: the highest rate whose percentile stayed within twice its value at the lowest rate probed. Every probe is in " + results.CapacityProbesFile + ".\n\n")
		t := capacityTable(c)
		t.write(b)
	}
	if len(c.fits) > 0 {
		b.WriteString("## Scalability fit (Universal Scalability Law)\n\n")
		b.WriteString("X(N) = λN / (1 + σ(N-1) + κN(N-1)) fitted by least squares to each sweep's throughput and to each clients search's probes (achieved ops/s at each client count probed); 95% intervals from the fit's covariance (t with n-3 degrees of freedom), the peak by the delta method. No peak where κ's interval reaches 0: throughput then levels off towards λ/σ within what was measured. A point outside the prediction interval of the fit to the other points is listed below the table.\n\n")
		t := uslTable(c.fits)
		t.write(b)
		listed := false
		for _, f := range c.fits {
			for _, o := range f.Fit.Outside() {
				fmt.Fprintf(b, "- outside the fit (%s): %s %s %s %s at %g clients: %s ops/s measured, %s to %s predicted\n", f.From, f.Scenario, f.Backend, f.Scale, f.Op, o.N,
					FormatRate(o.X), FormatRate(math.Max(o.Low, 0)), FormatRate(o.High))
				listed = true
			}
		}
		if listed {
			b.WriteString("\n")
		}
	}
	return nil
}

func capacityTable(c capacityReport) table {
	t := table{head: []string{"backend", "scale", "scenario", "clients", "capacity", "95% interval", "broke first", "knee ops/s", "service level", "probes", "s"},
		right: []bool{false, false, false, true, true, true, false, true, false, true, true}}
	for _, r := range c.rows {
		broke := r.LimitedBy
		if r.BudgetSpent {
			broke += " (budget spent)"
		}
		kneeRate, clients := fmtOptRate(knee(probesOf(c.probes, r))), strconv.Itoa(r.Clients)
		if r.Unit == results.UnitClients {
			kneeRate, clients = "-", "searched"
		}
		capacity := FormatRate(r.Capacity) + " " + r.Unit
		switch {
		case r.LimitedBy == "undecided":
			// The passes' edges disagree (the run's log says how): no capacity.
			capacity, broke = "cannot decide", "undecided: the passes' edges disagree, their interval reaches 0"
		case math.IsNaN(r.Capacity):
			capacity = "unknown"
		}
		t.rows = append(t.rows, []string{r.Backend, r.Scale, r.Scenario, clients, capacity, fmtInterval(r.Low, r.High),
			broke, kneeRate, r.ServiceLevel, strconv.Itoa(r.Probes), fmtSecs(r.Seconds, 1)})
	}
	return t
}

func uslTable(fits []sweepFit) table {
	t := table{head: []string{"scenario", "backend", "scale", "op", "fitted to", "λ ops/s", "σ", "κ", "peak clients", "peak ops/s", "rmse %", "outside"},
		right: []bool{false, false, false, false, false, true, true, true, true, true, true, true}}
	iv := func(i usl.Interval, f func(float64) string) string {
		return fmt.Sprintf("%s (%s to %s)", f(i.Value), f(i.Low), f(i.High))
	}
	for _, f := range fits {
		fit := f.Fit
		peakN, peakX := "-", "-"
		if fit.Kappa.Low > 0 {
			peakN, peakX = iv(fit.PeakN, fmtSig), iv(fit.PeakX, fmtOptRateInf)
		}
		t.rows = append(t.rows, []string{f.Scenario, f.Backend, f.Scale, f.Op, f.From, iv(fit.Lambda, FormatRate), iv(fit.Sigma, fmtSig), iv(fit.Kappa, fmtSig),
			peakN, peakX, strconv.FormatFloat(100*fit.RelRMSE, 'f', 1, 64), strconv.Itoa(len(fit.Outside()))})
	}
	return t
}

func fmtOptRateInf(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	return FormatRate(v)
}

var levelMs = regexp.MustCompile(`^p([0-9.]+)<=([0-9.]+)ms`)

// capacityHTML adds the capacity and scalability sections to report.html:
// the table, and per search the achieved rate and the percentile against
// the offered rate with the service level's line.
func (p *htmlBuilder) capacityHTML(r *results.Run) {
	c, err := loadCapacityReport(r)
	if err != nil {
		p.section("capacity", "Where it falls over", func() { p.render("findings", err.Error()) })
		return
	}
	if len(c.rows) > 0 {
		p.section("capacity", "Where it falls over", func() {
			t := capacityTable(c)
			p.table(t.head, t.right, t.rows)
			var cs []chart.Chart
			for _, row := range c.rows {
				if row.Unit != results.UnitClients {
					cs = append(cs, probeCharts(row, probesOf(c.probes, row))...)
				}
			}
			p.charts(cs)
		})
	}
	if len(c.fits) > 0 {
		p.section("usl", "Scalability fit (Universal Scalability Law)", func() {
			t := uslTable(c.fits)
			p.table(t.head, t.right, t.rows)
			var cs []chart.Chart
			for _, f := range c.fits {
				cs = append(cs, fitChart(f))
			}
			p.charts(cs)
		})
	}
}

func probeCharts(row results.CapacityRow, probes []results.CapacityProbeRow) []chart.Chart {
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

func fitChart(f sweepFit) chart.Chart {
	c := chart.Chart{Title: fmt.Sprintf("%s %s %s: throughput and the law fitted to the %s", f.Scenario, f.Backend, f.Scale, f.From), XLabel: "clients", YLabel: "ops/s", LogX: true}
	meas, fit := chart.Series{Name: "measured"}, chart.Series{Name: "fit", Dash: 1}
	for _, r := range f.Fit.Residuals {
		meas.Points = append(meas.Points, chart.Point{X: r.N, Y: r.X})
	}
	lo, hi := f.Fit.Residuals[0].N, f.Fit.Residuals[0].N
	for _, r := range f.Fit.Residuals {
		lo, hi = math.Min(lo, r.N), math.Max(hi, r.N)
	}
	for i := 0; i <= 40; i++ {
		n := lo * math.Pow(hi/lo, float64(i)/40)
		fit.Points = append(fit.Points, chart.Point{X: n, Y: usl.Throughput(n, f.Fit.Lambda.Value, f.Fit.Sigma.Value, f.Fit.Kappa.Value)})
	}
	sort.Slice(meas.Points, func(i, j int) bool { return meas.Points[i].X < meas.Points[j].X })
	c.Series = []chart.Series{meas, fit}
	return c
}
