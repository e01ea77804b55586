package history

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

//go:embed trends.css
var trendsCSS string

//go:embed trends.html.tmpl
var trendsTemplate string

var trendsPage = template.Must(template.New("trends").Funcs(template.FuncMap{
	"pct":  signedPct,
	"rev":  func(r string) string { return orUnknown(shortRev(r)) },
	"p":    func(p float64) string { return strconv.FormatFloat(p, 'g', 2, 64) },
	"time": func(r Run) string { return r.Started.Format("2006-01-02 15:04Z") },
}).Parse(trendsTemplate))

// chart is one series drawn: the band of its reps, its run medians, its
// change points.
type chart struct {
	Title   string
	Machine string
	Width   int
	Height  int
	Band    string // polygon points: every run's highest rep, then lowest back
	Line    string // polyline points: every run's median rep
	Marks   []mark
	YLow    string
	YHigh   string
	XLabel  string
	Changes []ChangePoint
}

type mark struct {
	X, Y1, Y2  float64
	Regression bool
	Label      string
}

const (
	chartW, chartH = 760, 180
	padL, padR     = 56, 12
	padT, padB     = 10, 22
)

func drawChart(s *Series) chart {
	c := chart{Title: s.Key.String(), Machine: s.Machine + hostsNote(s.Hosts), Width: chartW, Height: chartH, Changes: s.Changes}
	n := len(s.Runs)
	lo, hi := math.Inf(1), math.Inf(-1)
	mins, maxs, meds := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		v := s.Values(i)
		slices.Sort(v)
		mins[i], maxs[i], meds[i] = v[0], v[len(v)-1], v[len(v)/2]
		lo, hi = min(lo, v[0]), max(hi, v[len(v)-1])
	}
	if !(hi > lo) {
		lo, hi = lo*0.9, hi*1.1+1e-9
	}
	x := func(i int) float64 {
		if n == 1 {
			return padL
		}
		return padL + float64(i)*float64(chartW-padL-padR)/float64(n-1)
	}
	y := func(v float64) float64 { return padT + (hi-v)/(hi-lo)*float64(chartH-padT-padB) }
	var band, line strings.Builder
	for i := range n {
		fmt.Fprintf(&band, "%.1f,%.1f ", x(i), y(maxs[i]))
		fmt.Fprintf(&line, "%.1f,%.1f ", x(i), y(meds[i]))
	}
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&band, "%.1f,%.1f ", x(i), y(mins[i]))
	}
	c.Band, c.Line = strings.TrimSpace(band.String()), strings.TrimSpace(line.String())
	for _, cp := range s.Changes {
		c.Marks = append(c.Marks, mark{X: (x(cp.Index-1) + x(cp.Index)) / 2, Y1: padT, Y2: chartH - padB, Regression: cp.Regression,
			Label: fmt.Sprintf("%s at %s, revisions %s", signedPct(cp.Ratio), cp.Run.Name, cp.Revisions())})
	}
	c.YLow, c.YHigh = fmtValue(lo)+" "+s.Metric.Unit, fmtValue(hi)+" "+s.Metric.Unit
	c.XLabel = fmt.Sprintf("%d runs, %s to %s", n, s.Runs[0].Started.Format("2006-01-02"), s.Runs[n-1].Started.Format("2006-01-02"))
	return c
}

func fmtValue(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

type trendsData struct {
	CSS      template.CSS
	Runs     []Run
	Hosts    int // machines the runs came from
	Machines int // kinds of machine among them
	Series   int
	Changes  []SeriesChange
	Charts   []chart
	Bottom   int // the y of the charts' lowest label
}

// HTML writes trends.html: every series over its runs with the change
// points marked and their revision ranges named, one self-contained file
// (no script, no request: inline CSS and SVG).
func (a *Analysis) HTML(w io.Writer) error {
	d := trendsData{CSS: template.CSS(trendsCSS), Runs: a.Runs, Series: len(a.Series), Changes: a.Changes(), Bottom: chartH - padB}
	d.Hosts, d.Machines = len(a.Hosts), a.Kinds
	for _, s := range a.Series {
		d.Charts = append(d.Charts, drawChart(s))
	}
	return trendsPage.Execute(w, d)
}

// Markdown writes the history for a pull request comment: the newest
// run's verdict, then every change point.
func (a *Analysis) Markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("## Benchmark history\n\n")
	fmt.Fprintf(&b, "%d runs", len(a.Runs))
	if len(a.Hosts) > 0 {
		fmt.Fprintf(&b, " from %d machine(s) of %d kind(s)", len(a.Hosts), a.Kinds)
	}
	fmt.Fprintf(&b, ", %d series.", len(a.Series))
	if len(a.Runs) > 0 {
		last := a.Runs[len(a.Runs)-1]
		v := a.Check(last.ID)
		fmt.Fprintf(&b, " Newest run `%s` (revision `%s`): ", last.Name, orUnknown(shortRev(last.Revision)))
		switch {
		case v.Series > 0 && v.Young == v.Series:
			fmt.Fprintf(&b, "not judged: its series hold fewer than %d runs before it on this kind of machine.", MinRunsBefore)
		case len(v.Regressions) > 0:
			fmt.Fprintf(&b, "**%d regression(s) start here.**", len(v.Regressions))
		case len(v.Improvements) > 0:
			fmt.Fprintf(&b, "%d improvement(s) start here, no regression.", len(v.Improvements))
		default:
			b.WriteString("no change point starts here.")
		}
	}
	b.WriteString("\n\n")
	cs := a.Changes()
	if len(cs) == 0 {
		b.WriteString("No change point in any series.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("| series | at run | revisions | change | interval | p | what else changed | why: the evidence that moved |\n")
	b.WriteString("| --- | --- | --- | ---: | --- | ---: | --- | --- |\n")
	for _, c := range cs {
		var changed []string
		for _, d := range c.Changed {
			changed = append(changed, fmt.Sprintf("`%s` %s → %s", d.What, mdCell(d.Before), mdCell(d.After)))
		}
		if c.Noise != "" {
			changed = append(changed, mdCell(c.Noise))
		}
		verdict := signedPct(c.Ratio)
		switch {
		case c.Young():
			changed = append([]string{fmt.Sprintf("young series (%d runs before): not judged", c.Index)}, changed...)
		case c.Regression:
			verdict = "**" + verdict + " regression**"
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s | [%s, %s] | %.2g | %s | %s |\n", mdCell(c.Series.Key.String()), mdCell(c.Run.Name), c.Revisions(),
			verdict, signedPct(c.Low), signedPct(c.High), c.PValue, strings.Join(changed, "; "), mdCell(c.WhySay()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hostsNote says which machines fed a series.
func hostsNote(hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	return fmt.Sprintf("; runs from %d machine(s): %s", len(hosts), strings.Join(hosts, ", "))
}

func mdCell(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
