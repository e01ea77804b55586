// Package chart draws small static SVG charts (lines over a numeric or
// categorical axis, grouped bars) for self-contained reports: no script,
// no network, styled by the page's CSS through class names.
package chart

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Series is one named line or one bar per group.
type Series struct {
	Name   string
	Points []Point
	// Key groups series drawn in one color (a backend's p50, p95 and
	// p99); empty: the name.
	Key string
	// Dash draws a line solid (0), dashed (1) or dotted (2), and a bar
	// filled (0) or light (1, 2): p99 beside p50 in the key's color.
	Dash int
}

// Point is one value; X is the group or category index for categorical
// axes. Reps are the values the point summarises (one per rep): drawn as
// a min-max whisker with a tick per rep, so their spread shows.
type Point struct {
	X, Y float64
	Reps []float64
}

// Tick is a labelled position on a numeric X axis.
type Tick struct {
	At    float64
	Label string
}

// Chart is a line chart (Bars false) or a grouped bar chart (Bars true,
// X of each point the index of its group in Categories).
type Chart struct {
	Title          string
	XLabel, YLabel string
	// Categories names the X positions 0..n-1; empty for a numeric X.
	Categories []string
	LogX, LogY bool
	Bars       bool
	Series     []Series
	// XTicks replaces the numeric X axis' round ticks (a percentile
	// axis labels its positions 90, 99, 99.9).
	XTicks []Tick
	// XMin and XMax fix a numeric X axis' range (0: the data's), so that
	// charts of one kind line up.
	XMin, XMax float64
	// NoDots draws lines without a dot per point (a dense curve); a
	// single point is still a dot.
	NoDots bool
	// Palette fixes the color index of series keys (a run's backends, the
	// same on every chart of a page); keys it lacks take the next free
	// colors in order of first appearance.
	Palette map[string]int
}

// Size of the drawing in SVG units; the page scales it to its width.
const (
	width, height                  = 960, 340
	padL, padR, padT, padB, legend = 64, 16, 34, 44, 18
	// legendCols is the number of legend entries per row.
	legendCols = 6
)

// SVG renders the chart. A chart without points renders its title and
// "no data", never an empty element.
func (c Chart) SVG() template.HTML {
	rows := (len(c.Series) + legendCols - 1) / legendCols
	// Category names that do not fit their slot are slanted, and the plot
	// gives them room below.
	slant, extra := c.slant()
	plotH := height + extra
	d := drawing{W: width, H: plotH + rows*legend, Title: c.Title, TitleX: padL}
	xmin, xmax, ymin, ymax, ok := c.bounds()
	if !ok {
		d.Empty, d.EmptyX, d.EmptyY = true, width/2, height/2
		return d.render()
	}
	x0, x1, y0, y1 := float64(padL), float64(width-padR), float64(height-padB), float64(padT)
	xs := scale{min: xmin, max: xmax, log: c.LogX, lo: x0, hi: x1}
	ys := scale{min: ymin, max: ymax, log: c.LogY, lo: y0, hi: y1}
	if len(c.Categories) > 0 {
		// Categories sit in the middle of equal slots.
		xs = scale{min: -0.5, max: float64(len(c.Categories)) - 0.5, lo: x0, hi: x1}
	}
	// Grid and Y ticks.
	for _, v := range ys.ticks() {
		y := ys.at(v)
		d.line("grid", x0, y, x1, y)
		d.text(mark{Class: "tick", X: f1(x0 - 4), Y: f1(y + 4), Anchor: "end", Text: num(v)})
	}
	// X ticks.
	if len(c.Categories) > 0 {
		for i, name := range c.Categories {
			x := xs.at(float64(i))
			if slant {
				d.text(mark{Class: "tick", X: f1(x), Y: f1(y0 + 14), Anchor: "end", Transform: "rotate(-35 " + f1(x) + " " + f1(y0+14) + ")", Text: name})
				continue
			}
			d.text(mark{Class: "tick", X: f1(x), Y: f1(y0 + 16), Anchor: "middle", Text: name})
		}
	} else {
		ticks := c.XTicks
		if len(ticks) == 0 {
			for _, v := range xs.ticks() {
				ticks = append(ticks, Tick{v, num(v)})
			}
		}
		for _, t := range ticks {
			if !xs.valid(t.At) || t.At < xmin*0.999 || t.At > xmax*1.001 {
				continue
			}
			x := xs.at(t.At)
			d.line("grid", x, y0, x, y1)
			// A label at the right edge ends there rather than past it.
			anchor := "middle"
			if x > x1-float64(len(t.Label))*3.5 {
				anchor = "end"
			}
			d.text(mark{Class: "tick", X: f1(x), Y: f1(y0 + 16), Anchor: anchor, Text: t.Label})
		}
	}
	d.line("axis", x0, y0, x1, y0)
	d.line("axis", x0, y0, x0, y1)
	d.text(mark{Class: "label", X: f1((x0 + x1) / 2), Y: strconv.Itoa(plotH - 8), Anchor: "middle", Text: c.XLabel})
	d.add(mark{Kind: "vtext", Class: "label", Transform: "translate(14 " + f1((y0+y1)/2) + ") rotate(-90)", Anchor: "middle", Text: c.YLabel})

	if c.Bars {
		c.drawBars(&d, xs, ys)
	} else {
		c.drawLines(&d, xs, ys)
	}
	// Legend.
	colors := c.colors()
	for i, s := range c.Series {
		lx := float64(padL + (i%legendCols)*((width-padL)/legendCols))
		ly := float64(plotH + (i/legendCols)*legend + 4)
		if c.Bars || s.Dash == 0 {
			d.add(mark{Kind: "swatch", Class: fmt.Sprintf("s%d%s", colors[i], light(c.Bars, s.Dash)), X: f1(lx), Y: f1(ly)})
		} else {
			d.line(fmt.Sprintf("line s%d d%d", colors[i], s.Dash), lx-2, ly+5, lx+11, ly+5)
		}
		d.text(mark{Class: "legend", X: f1(lx + 14), Y: f1(ly + 9), Text: s.Name})
	}
	return d.render()
}

// drawing is a chart's SVG as data: its marks in drawing order, each
// coordinate written as the drawing is (one decimal).
type drawing struct {
	W, H, TitleX   int
	Title          string
	Empty          bool
	EmptyX, EmptyY int
	Marks          []mark
}

// mark is one SVG element; Kind says which, the rest are its attributes
// and text.
type mark struct {
	Kind, Class                string
	X, Y, X1, Y1, X2, Y2, W, H string
	Anchor, Transform, Points  string
	Text                       string
}

func (d *drawing) add(m mark) { d.Marks = append(d.Marks, m) }

func (d *drawing) line(class string, x1, y1, x2, y2 float64) {
	d.add(mark{Kind: "line", Class: class, X1: f1(x1), Y1: f1(y1), X2: f1(x2), Y2: f1(y2)})
}

func (d *drawing) text(m mark) {
	m.Kind = "text"
	d.add(m)
}

// The SVG of a drawing, one element after another without white space.
// html/template escapes every text and attribute value.
const svgTemplate = `{{define "svg"}}<svg class="chart" viewBox="0 0 {{.W}} {{.H}}" width="100%" role="img" aria-label="{{.Title}}">` +
	`<title>{{.Title}}</title><text class="title" x="{{.TitleX}}" y="20">{{.Title}}</text>` +
	`{{if .Empty}}<text class="empty" x="{{.EmptyX}}" y="{{.EmptyY}}">no data</text>{{else}}{{range .Marks}}{{template "mark" .}}{{end}}{{end}}</svg>{{end}}` +
	`{{define "mark"}}{{if eq .Kind "line"}}<line class="{{.Class}}" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}"/>` +
	`{{else if eq .Kind "text"}}<text class="{{.Class}}" x="{{.X}}" y="{{.Y}}"{{with .Anchor}} text-anchor="{{.}}"{{end}}{{with .Transform}} transform="{{.}}"{{end}}>{{.Text}}</text>` +
	`{{else if eq .Kind "vtext"}}<text class="{{.Class}}" transform="{{.Transform}}" text-anchor="{{.Anchor}}">{{.Text}}</text>` +
	`{{else if eq .Kind "whisker"}}<line class="{{.Class}}" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}"><title>{{.Text}}</title></line>` +
	`{{else if eq .Kind "polyline"}}<polyline class="{{.Class}}" points="{{.Points}}"/>` +
	`{{else if eq .Kind "dot"}}<circle class="{{.Class}}" cx="{{.X}}" cy="{{.Y}}" r="3"><title>{{.Text}}</title></circle>` +
	`{{else if eq .Kind "swatch"}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="10" height="10"/>` +
	`{{else if eq .Kind "bar"}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Text}}</title></rect>` +
	`{{end}}{{end}}`

var svg = template.Must(template.New("chart").Parse(svgTemplate))

func (d drawing) render() template.HTML {
	var b strings.Builder
	if err := svg.ExecuteTemplate(&b, "svg", d); err != nil {
		// The template and its data are this package's: an error is a bug.
		panic("chart: " + err.Error())
	}
	return template.HTML(b.String())
}

// f1 writes a coordinate with one decimal.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// slant reports whether the category names are too long for their slots
// (at about 6 units a character), and the extra height they then need.
func (c Chart) slant() (bool, int) {
	if len(c.Categories) == 0 {
		return false, 0
	}
	longest := 0
	for _, n := range c.Categories {
		longest = max(longest, len(n))
	}
	slot := float64(width-padL-padR) / float64(len(c.Categories))
	if float64(longest)*6.2 < slot-4 {
		return false, 0
	}
	return true, min(longest*4, 90)
}

// colors returns each series' color class: the palette's for its key,
// else one per distinct key, in order of first appearance, after the
// palette's.
func (c Chart) colors() []int {
	at := map[string]int{}
	next := 0
	for _, n := range c.Palette {
		next = max(next, n+1)
	}
	out := make([]int, len(c.Series))
	for i, s := range c.Series {
		k := s.Key
		if k == "" {
			k = s.Name
		}
		n, ok := c.Palette[k]
		if !ok {
			if n, ok = at[k]; !ok {
				n = next
				next++
				at[k] = n
			}
		}
		out[i] = n % colorCount
	}
	return out
}

// colorCount is the number of color classes (s0..s7) the page's CSS
// defines.
const colorCount = 8

// light is the class suffix of a bar drawn light (a p99 beside its p50).
func light(bars bool, dash int) string {
	if bars && dash > 0 {
		return " lt"
	}
	return ""
}

// whisker draws the spread of a point's reps at x: a min-max line and a
// short tick per rep.
func (d *drawing) whisker(class string, x float64, ys scale, reps []float64, name string) {
	var lo, hi float64 = math.Inf(1), math.Inf(-1)
	var at []float64
	for _, v := range reps {
		if ys.valid(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			at = append(at, ys.at(v))
		}
	}
	if len(at) < 2 {
		return
	}
	d.add(mark{Kind: "whisker", Class: "whisker " + class, X1: f1(x), Y1: f1(ys.at(lo)), X2: f1(x), Y2: f1(ys.at(hi)),
		Text: fmt.Sprintf("%s: %d reps, %s to %s", name, len(at), num(lo), num(hi))})
	for _, y := range at {
		d.line("rep "+class, x-4, y, x+4, y)
	}
}

func (c Chart) drawLines(d *drawing, xs, ys scale) {
	colors := c.colors()
	for i, s := range c.Series {
		var drawn []Point
		for _, p := range s.Points {
			if xs.valid(p.X) && ys.valid(p.Y) {
				drawn = append(drawn, p)
			}
		}
		if len(drawn) > 1 {
			joined := make([]string, len(drawn))
			for j, p := range drawn {
				joined[j] = f1(xs.at(p.X)) + "," + f1(ys.at(p.Y))
			}
			d.add(mark{Kind: "polyline", Class: fmt.Sprintf("line s%d d%d", colors[i], s.Dash), Points: strings.Join(joined, " ")})
		}
		for _, p := range drawn {
			d.whisker(fmt.Sprintf("s%d", colors[i]), xs.at(p.X), ys, p.Reps, s.Name)
		}
		if c.NoDots && len(drawn) > 1 {
			continue
		}
		for _, p := range drawn {
			d.add(mark{Kind: "dot", Class: fmt.Sprintf("dot s%d", colors[i]), X: f1(xs.at(p.X)), Y: f1(ys.at(p.Y)),
				Text: s.Name + ": " + c.xText(p.X) + ", " + num(p.Y)})
		}
	}
}

func (c Chart) drawBars(d *drawing, xs, ys scale) {
	colors := c.colors()
	n := len(c.Series)
	slot := (xs.hi - xs.lo) / float64(len(c.Categories))
	bw := slot * 0.8 / float64(max(n, 1))
	base := ys.lo
	for i, s := range c.Series {
		for _, p := range s.Points {
			if !ys.valid(p.Y) {
				continue
			}
			x := xs.at(p.X) - slot*0.4 + float64(i)*bw
			y := ys.at(p.Y)
			d.add(mark{Kind: "bar", Class: fmt.Sprintf("bar s%d%s", colors[i], light(true, s.Dash)), X: f1(x), Y: f1(y), W: f1(bw), H: f1(math.Max(base-y, 0.5)),
				Text: s.Name + ", " + c.xText(p.X) + ": " + num(p.Y)})
			d.whisker(fmt.Sprintf("s%d", colors[i]), x+bw/2, ys, p.Reps, s.Name+", "+c.xText(p.X))
		}
	}
}

func (c Chart) xText(x float64) string {
	if i := int(x); len(c.Categories) > 0 && i >= 0 && i < len(c.Categories) {
		return c.Categories[i]
	}
	return num(x)
}

// bounds returns the data range, widened to a drawable one; bars start at
// zero on a linear axis.
func (c Chart) bounds() (xmin, xmax, ymin, ymax float64, ok bool) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, s := range c.Series {
		for _, p := range s.Points {
			if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || (c.LogY && p.Y <= 0) || (c.LogX && p.X <= 0) {
				continue
			}
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
			ok = true
			for _, v := range p.Reps {
				if !math.IsNaN(v) && !math.IsInf(v, 0) && (!c.LogY || v > 0) {
					ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
				}
			}
		}
	}
	if !ok {
		return 0, 0, 0, 0, false
	}
	if c.XMin != 0 || c.XMax != 0 {
		xmin, xmax = c.XMin, c.XMax
	}
	if !c.LogY && (c.Bars || ymin > 0) {
		ymin = math.Min(ymin, 0)
	}
	if c.LogY {
		ymin, ymax = math.Pow(10, math.Floor(math.Log10(ymin))), math.Pow(10, math.Ceil(math.Log10(ymax)))
		if ymin == ymax {
			ymax *= 10
		}
	} else if ymax == ymin {
		ymax = ymin + 1
	} else {
		ymax += (ymax - ymin) * 0.05
	}
	if xmax == xmin {
		if c.LogX {
			xmin, xmax = xmin/2, xmax*2
		} else {
			xmin, xmax = xmin-1, xmax+1
		}
	}
	return xmin, xmax, ymin, ymax, true
}

// scale maps data to drawing coordinates, linearly or by log10.
type scale struct {
	min, max float64
	log      bool
	lo, hi   float64
}

func (s scale) f(v float64) float64 {
	if s.log {
		return math.Log10(v)
	}
	return v
}

func (s scale) valid(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!s.log || v > 0)
}

func (s scale) at(v float64) float64 {
	a, z := s.f(s.min), s.f(s.max)
	return s.lo + (s.f(v)-a)/(z-a)*(s.hi-s.lo)
}

// ticks returns about five round values in range: powers of ten (and
// their doubles and fives when few) on a log axis, 1-2-5 steps otherwise.
func (s scale) ticks() []float64 {
	var out []float64
	if s.log {
		for e := math.Floor(math.Log10(s.min)); e <= math.Ceil(math.Log10(s.max)); e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if v >= s.min*0.999 && v <= s.max*1.001 {
					out = append(out, v)
				}
			}
		}
		if len(out) > 8 {
			var decades []float64
			for _, v := range out {
				if m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9)); math.Abs(m-1) < 1e-6 {
					decades = append(decades, v)
				}
			}
			out = decades
		}
		return out
	}
	span := s.max - s.min
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	for v := math.Ceil(s.min/step) * step; v <= s.max+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// num formats a value compactly: 0.083, 12.5, 1.2k, 3.4M.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strings.TrimSuffix(strconv.FormatFloat(v/1e6, 'f', 1, 64), ".0") + "M"
	case a >= 1e4:
		return strconv.FormatFloat(math.Round(v/1e3), 'f', 0, 64) + "k"
	case a >= 100 || a == 0:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
}
