package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	tests := []struct {
		name string
		s    scale
		want []float64
	}{
		{"linear 0..100", scale{min: 0, max: 100}, []float64{0, 20, 40, 60, 80, 100}},
		{"linear 0..7", scale{min: 0, max: 7}, []float64{0, 2, 4, 6}},
		{"log 0.1..10", scale{min: 0.1, max: 10, log: true}, []float64{0.1, 0.2, 0.5, 1, 2, 5, 10}},
		{"log many decades: powers of ten only", scale{min: 0.001, max: 1000, log: true}, []float64{0.001, 0.01, 0.1, 1, 10, 100, 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.ticks()
			if len(got) != len(tt.want) {
				t.Fatalf("ticks %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9*math.Max(1, tt.want[i]) {
					t.Fatalf("ticks %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.083: "0.083", 2.5: "2.5", 250: "250", 12000: "12k", 3400000: "3.4M", 2000000: "2M"} {
		if got := num(v); got != want {
			t.Errorf("num(%g) = %q, want %q", v, got, want)
		}
	}
}

var coord = regexp.MustCompile(`(?:x|y|cx|cy|width|height)="(-?[0-9.]+)"`)

func TestSVG(t *testing.T) {
	tests := []struct {
		name  string
		c     Chart
		marks map[string]int // element → count
		has   []string
	}{
		{
			name: "lines over log axes, one color per key, dashed percentiles",
			c: Chart{Title: "a & b", LogX: true, LogY: true, Series: []Series{
				{Name: "pg p50", Key: "pg", Points: []Point{{X: 1, Y: 0.5}, {X: 2, Y: 0.6}, {X: 4, Y: 0.9}}},
				{Name: "pg p99", Key: "pg", Dash: 2, Points: []Point{{X: 1, Y: 2}, {X: 2, Y: 3}, {X: 4, Y: 0}}}, // 0 cannot be drawn on a log axis
			}},
			marks: map[string]int{"<polyline": 2, "<circle": 5},
			has:   []string{"<title>a &amp; b</title>", `class="line s0 d0"`, `class="line s0 d2"`},
		},
		{
			name: "grouped bars",
			c: Chart{Title: "bars", Bars: true, Categories: []string{"xs", "s"}, Series: []Series{
				{Name: "sqlite", Points: []Point{{X: 0, Y: 100}, {X: 1, Y: 80}}},
				{Name: "duckdb", Points: []Point{{X: 0, Y: 50}}},
			}},
			marks: map[string]int{`<rect class="bar`: 3, "<polyline": 0},
			has:   []string{">xs</text>", `class="bar s1"`},
		},
		{
			name: "a palette fixes a key's color whatever the series order",
			c: Chart{Title: "fixed", Palette: map[string]int{"a": 0, "b": 1}, Series: []Series{
				{Name: "b p50", Key: "b", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 2}}},
				{Name: "c", Points: []Point{{X: 1, Y: 3}, {X: 2, Y: 4}}},
			}},
			marks: map[string]int{"<polyline": 2},
			has:   []string{`class="line s1 d0"`, `class="line s2 d0"`, `width="100%"`},
		},
		{
			name: "rep spread: a whisker from the least to the greatest rep, a tick per rep",
			c: Chart{Title: "reps", Bars: true, Categories: []string{"q"}, Series: []Series{
				{Name: "a p50", Key: "a", Points: []Point{{X: 0, Y: 2, Reps: []float64{1.5, 2, 3}}}},
				{Name: "a p99", Key: "a", Dash: 2, Points: []Point{{X: 0, Y: 9, Reps: []float64{9}}}}, // one rep: no spread to draw
			}},
			marks: map[string]int{`<line class="whisker s0"`: 1, `<line class="rep s0"`: 3, `class="bar s0 lt"`: 1},
			has:   []string{"a p50, q: 3 reps, 1.5 to 3"},
		},
		{
			name: "labelled X ticks",
			c: Chart{Title: "spectrum", LogX: true, LogY: true, XTicks: []Tick{{1, "0"}, {10, "90"}, {100, "99"}, {1e6, "99.9999"}}, Series: []Series{
				{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 100, Y: 5}}},
			}},
			has: []string{">90</text>", ">99</text>"},
		},
		{
			name:  "no data",
			c:     Chart{Title: "empty", Series: []Series{{Name: "x"}}},
			marks: map[string]int{"<circle": 0, "<rect": 0},
			has:   []string{"no data", "<title>empty</title>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(tt.c.SVG())
			if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>") {
				t.Fatalf("not one svg element: %.80s", svg)
			}
			for el, n := range tt.marks {
				if got := strings.Count(svg, el); got != n {
					t.Errorf("%d %s, want %d", got, el, n)
				}
			}
			for _, h := range tt.has {
				if !strings.Contains(svg, h) {
					t.Errorf("svg lacks %q", h)
				}
			}
			// Every mark lies inside the drawing.
			for _, m := range coord.FindAllStringSubmatch(svg, -1) {
				v, err := strconv.ParseFloat(m[1], 64)
				if err != nil || v < 0 || v > width {
					t.Errorf("coordinate %s out of the drawing", m[0])
				}
			}
		})
	}
}

func TestSlant(t *testing.T) {
	short := Chart{Categories: []string{"xs", "s", "m"}}
	long := Chart{Categories: []string{"point_lookup", "ref_traversal", "aggregate", "predicate_scan", "pull", "as_of", "since", "input_bindings", "write_mixed", "concurrency_sweep", "cold_warm", "sustained_read", "open_loop_read"}}
	if ok, extra := short.slant(); ok || extra != 0 {
		t.Errorf("short names slanted: %v %d", ok, extra)
	}
	if ok, extra := long.slant(); !ok || extra <= 0 {
		t.Errorf("long names not slanted: %v %d", ok, extra)
	}
	long.Bars, long.Series = true, []Series{{Name: "sqlite", Points: []Point{{X: 0, Y: 1}, {X: 12, Y: 2}}}}
	if svg := string(long.SVG()); !strings.Contains(svg, "rotate(-35") {
		t.Error("slanted names are not rotated")
	}
}
