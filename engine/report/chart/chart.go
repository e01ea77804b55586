// Package chart draws small static SVG charts (lines over a numeric or
// categorical axis, grouped bars) for self-contained reports: no script,
// no network, styled by the page's CSS through class names.
package chart

import (
	"fmt"
	"html"
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
	// Dash draws a line solid (0), dashed (1) or dotted (2).
	Dash int
}

// Point is one value; X is the group or category index for categorical
// axes.
type Point struct{ X, Y float64 }

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
}

// Size of the drawing in SVG units; the page scales it to its width.
const (
	width, height                  = 640, 320
	padL, padR, padT, padB, legend = 64, 16, 34, 44, 18
)

// SVG renders the chart. A chart without points renders its title and
// "no data", never an empty element.
func (c Chart) SVG() string {
	var b strings.Builder
	rows := (len(c.Series) + 3) / 4
	// Category names that do not fit their slot are slanted, and the plot
	// gives them room below.
	slant, extra := c.slant()
	plotH := height + extra
	h := plotH + rows*legend
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, width, h, esc(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, esc(c.Title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="20">%s</text>`, padL, esc(c.Title))
	xmin, xmax, ymin, ymax, ok := c.bounds()
	if !ok {
		fmt.Fprintf(&b, `<text class="empty" x="%d" y="%d">no data</text></svg>`, width/2, height/2)
		return b.String()
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
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y, x1, y)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, x0-4, y+4, num(v))
	}
	// X ticks.
	if len(c.Categories) > 0 {
		for i, name := range c.Categories {
			x := xs.at(float64(i))
			if slant {
				fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-35 %.1f %.1f)">%s</text>`, x, y0+14, x, y0+14, esc(name))
				continue
			}
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, y0+16, esc(name))
		}
	} else {
		for _, v := range xs.ticks() {
			x := xs.at(v)
			fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, y0, x, y1)
			fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, y0+16, num(v))
		}
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y0, x1, y0)
	fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x0, y0, x0, y1)
	fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%d" text-anchor="middle">%s</text>`, (x0+x1)/2, plotH-8, esc(c.XLabel))
	fmt.Fprintf(&b, `<text class="label" transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`, (y0+y1)/2, esc(c.YLabel))

	if c.Bars {
		c.drawBars(&b, xs, ys)
	} else {
		c.drawLines(&b, xs, ys)
	}
	// Legend.
	colors := c.colors()
	for i, s := range c.Series {
		lx := float64(padL + (i%4)*((width-padL)/4))
		ly := float64(plotH + (i/4)*legend + 4)
		if c.Bars || s.Dash == 0 {
			fmt.Fprintf(&b, `<rect class="s%d" x="%.1f" y="%.1f" width="10" height="10"/>`, colors[i], lx, ly)
		} else {
			fmt.Fprintf(&b, `<line class="line s%d d%d" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, colors[i], s.Dash, lx-2, ly+5, lx+11, ly+5)
		}
		fmt.Fprintf(&b, `<text class="legend" x="%.1f" y="%.1f">%s</text>`, lx+14, ly+9, esc(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

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

// colors returns each series' color class: one per distinct key, in order
// of first appearance.
func (c Chart) colors() []int {
	at := map[string]int{}
	out := make([]int, len(c.Series))
	for i, s := range c.Series {
		k := s.Key
		if k == "" {
			k = s.Name
		}
		n, ok := at[k]
		if !ok {
			n = len(at)
			at[k] = n
		}
		out[i] = n % 8
	}
	return out
}

func (c Chart) drawLines(b *strings.Builder, xs, ys scale) {
	colors := c.colors()
	for i, s := range c.Series {
		var pts []string
		for _, p := range s.Points {
			if !xs.valid(p.X) || !ys.valid(p.Y) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs.at(p.X), ys.at(p.Y)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline class="line s%d d%d" points="%s"/>`, colors[i], s.Dash, strings.Join(pts, " "))
		}
		for j, p := range pts {
			x, y, _ := strings.Cut(p, ",")
			fmt.Fprintf(b, `<circle class="dot s%d" cx="%s" cy="%s" r="3"><title>%s: %s, %s</title></circle>`,
				colors[i], x, y, esc(s.Name), c.xText(s.Points[j].X), num(s.Points[j].Y))
		}
	}
}

func (c Chart) drawBars(b *strings.Builder, xs, ys scale) {
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
			fmt.Fprintf(b, `<rect class="bar s%d" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s, %s: %s</title></rect>`,
				colors[i], x, y, bw, math.Max(base-y, 0.5), esc(s.Name), c.xText(p.X), num(p.Y))
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
		}
	}
	if !ok {
		return 0, 0, 0, 0, false
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

func esc(s string) string { return html.EscapeString(s) }
