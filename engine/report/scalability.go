package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/usl"
)

// The scalability fit: the Universal Scalability Law fitted to every
// closed-loop sweep of four or more client counts and to the curves the
// kinds' sections give (KindSection.Curves), for summary.md and
// report.html, after the kinds' own sections. Left out when there is
// nothing to fit.

// sweepFit is the law fitted to one sweep, or to one curve of a kind.
type sweepFit struct {
	Scenario, Backend, Scale, Op string
	From                         string // what was fitted: fitSweep or a curve's From
	Fit                          *usl.Fit
}

const fitSweep = "sweep"

// scalabilityFits are the fits of r's sweeps, then of its kinds' curves.
func scalabilityFits(r *results.Run) []sweepFit {
	fits := sweepFits(r.Points())
	for _, s := range kindSections {
		if s.Curves == nil {
			continue
		}
		for _, c := range s.Curves(r) {
			f, err := usl.FitPoints(c.Points)
			if err != nil {
				continue // fewer than four client counts
			}
			fits = append(fits, sweepFit{Scenario: c.Scenario, Backend: c.Backend, Scale: c.Scale, Op: c.Op, From: c.From, Fit: f})
		}
	}
	return fits
}

// writeKindSections writes the kinds' sections and the scalability fit
// of summary.md.
func writeKindSections(b *bytes.Buffer, r *results.Run) {
	for _, s := range kindSections {
		if s.Markdown != nil {
			s.Markdown(b, r)
		}
	}
	fits := scalabilityFits(r)
	if len(fits) > 0 {
		b.WriteString("## Scalability fit (Universal Scalability Law)\n\n")
		b.WriteString("X(N) = λN / (1 + σ(N-1) + κN(N-1)) fitted by least squares to each sweep's throughput and to each clients search's probes (achieved ops/s at each client count probed); 95% intervals from the fit's covariance (t with n-3 degrees of freedom), the peak by the delta method. No peak where κ's interval reaches 0: throughput then levels off towards λ/σ within what was measured. A point outside the prediction interval of the fit to the other points is listed below the table.\n\n")
		t := uslTable(fits)
		t.write(b)
		listed := false
		for _, f := range fits {
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
}

// kindSectionsHTML adds the kinds' sections and the scalability fit to
// report.html.
func (p *htmlBuilder) kindSectionsHTML(r *results.Run) {
	for _, s := range kindSections {
		if s.HTML != nil {
			s.HTML(HTMLPage{p}, r)
		}
	}
	if fits := scalabilityFits(r); len(fits) > 0 {
		p.section("usl", "Scalability fit (Universal Scalability Law)", func() {
			t := uslTable(fits)
			p.table(t.head, t.right, t.rows)
			var cs []chart.Chart
			for _, f := range fits {
				cs = append(cs, fitChart(f))
			}
			p.charts(cs)
		})
	}
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

// fmtSig is a parameter with four significant digits.
func fmtSig(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
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
