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
				{Name: "pg p50", Key: "pg", Points: []Point{{1, 0.5}, {2, 0.6}, {4, 0.9}}},
				{Name: "pg p99", Key: "pg", Dash: 2, Points: []Point{{1, 2}, {2, 3}, {4, 0}}}, // 0 cannot be drawn on a log axis
			}},
			marks: map[string]int{"<polyline": 2, "<circle": 5},
			has:   []string{"<title>a &amp; b</title>", `class="line s0 d0"`, `class="line s0 d2"`},
		},
		{
			name: "grouped bars",
			c: Chart{Title: "bars", Bars: true, Categories: []string{"xs", "s"}, Series: []Series{
				{Name: "sqlite", Points: []Point{{0, 100}, {1, 80}}},
				{Name: "duckdb", Points: []Point{{0, 50}}},
			}},
			marks: map[string]int{`<rect class="bar`: 3, "<polyline": 0},
			has:   []string{">xs</text>", `class="bar s1"`},
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
	long := Chart{Categories: []string{"point_lookup", "ref_traversal", "aggregate", "predicate_scan", "pull", "as_of", "since", "input_bindings"}}
	if ok, extra := short.slant(); ok || extra != 0 {
		t.Errorf("short names slanted: %v %d", ok, extra)
	}
	if ok, extra := long.slant(); !ok || extra <= 0 {
		t.Errorf("long names not slanted: %v %d", ok, extra)
	}
	long.Bars, long.Series = true, []Series{{Name: "sqlite", Points: []Point{{0, 1}, {7, 2}}}}
	if svg := string(long.SVG()); !strings.Contains(svg, "rotate(-35") {
		t.Error("slanted names are not rotated")
	}
}
