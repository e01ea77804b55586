package report

import (
	"math"
	"slices"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func row(sc, be string, clients int, op string, p50 float64) results.Row {
	return results.Row{Scenario: sc, Backend: be, Scale: "xs", Clients: clients, Op: op, Count: 100, P50Ms: p50, P99Ms: 4 * p50, Throughput: 1000 / p50}
}

// Only points that differ by client count make a chart against clients:
// a writer at 1 client beside readers at 2 is not a sweep.
func TestSweepChartsOnlySweeps(t *testing.T) {
	rank := map[string]int{"xs": 0}
	tests := []struct {
		name   string
		rows   []results.Row
		charts int
		lines  []string // series of the latency chart
	}{
		{"writer and readers", []results.Row{row("write_mixed", "a", 1, "write", 1), row("write_mixed", "a", 2, "read", 2)}, 0, nil},
		{"a sweep", []results.Row{row("sweep", "a", 1, "read", 1), row("sweep", "a", 4, "read", 2), row("sweep", "b", 1, "read", 3), row("sweep", "b", 4, "read", 5)}, 2,
			[]string{"a read p50", "a read p95", "a read p99", "b read p50", "b read p95", "b read p99"}},
		{"one backend swept, one not", []results.Row{row("sweep", "a", 1, "read", 1), row("sweep", "a", 4, "read", 2), row("sweep", "b", 1, "read", 3)}, 2,
			[]string{"a read p50", "a read p95", "a read p99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := sweepCharts(tt.rows, repSpread{}, rank, palette(tt.rows, nil))
			if len(cs) != tt.charts {
				t.Fatalf("%d charts, want %d", len(cs), tt.charts)
			}
			if len(cs) == 0 {
				return
			}
			var names []string
			for _, s := range cs[0].Series {
				names = append(names, s.Name)
			}
			if !slices.Equal(names, tt.lines) {
				t.Errorf("lines %q, want %q", names, tt.lines)
			}
			if ticks := cs[0].XTicks; len(ticks) != 2 || ticks[0].Label != "1" || ticks[1].Label != "4" {
				t.Errorf("ticks %v, want the client counts 1 and 4", ticks)
			}
		})
	}
}

// Each point's reps come from raw.csv; a point run again keeps only the
// reps of its last run.
func TestSpreadOf(t *testing.T) {
	rep := func(n int, p50 float64) results.Row {
		r := row("pl", "a", 1, "read", p50)
		r.Rep = n
		return r
	}
	s := spreadOf([]results.Row{rep(1, 9), rep(2, 9), rep(1, 1), rep(2, 2), rep(3, 3)})
	if got := s.of(row("pl", "a", 1, "read", 2), p50); !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("reps %v, want those of the last run", got)
	}
	cs := scenarioCharts([]results.Row{row("pl", "a", 1, "read", 2)}, s, map[string]int{"xs": 0}, nil)
	if len(cs) != 1 || len(cs[0].Series) != 2 {
		t.Fatalf("charts %+v, want one with p50 and p99", cs)
	}
	if got := cs[0].Series[0].Points[0].Reps; !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("p50 bar's reps %v", got)
	}
	if got := cs[0].Series[1].Points[0].Reps; !slices.Equal(got, []float64{4, 8, 12}) {
		t.Errorf("p99 bar's reps %v", got)
	}
}

// Colors follow the sorted backends of timings and loads, whichever
// chart draws them; a check's "a+b" takes none.
func TestPalette(t *testing.T) {
	p := palette([]results.Row{{Backend: "sqlite"}, {Backend: "duckdb"}}, []results.LoadRow{{Backend: "postgres"}})
	if p["duckdb"] != 0 || p["postgres"] != 1 || p["sqlite"] != 2 || len(p) != 3 {
		t.Errorf("palette %v", p)
	}
}

// The spectrum of a real point: from p0 up to the last percentile its
// count tells apart, latencies never falling, p50 the histogram's.
func TestSpectrum(t *testing.T) {
	run, err := results.Load(fullXSFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"point_lookup-sqlite-xs-c1-read.hlog", "concurrency_sweep-duckdb-xs-c8-read.hlog"} {
		h, err := mergeHlog(name, run.Hlogs[name])
		if err != nil {
			t.Fatal(err)
		}
		pts := spectrum(h)
		if pts[0].X != 1 || pts[0].Y != float64(h.ValueAtQuantile(0))/1e6 {
			t.Errorf("%s: first point %+v, want p0", name, pts[0])
		}
		if last := pts[len(pts)-1].X; last != math.Min(float64(h.TotalCount()), spectrumMax) {
			t.Errorf("%s: last position %g for %d calls", name, last, h.TotalCount())
		}
		for i := 1; i < len(pts); i++ {
			if pts[i].X <= pts[i-1].X || pts[i].Y < pts[i-1].Y {
				t.Errorf("%s: point %d %+v after %+v", name, i, pts[i], pts[i-1])
			}
		}
		// p50 (x = 2) lies between the points either side of it.
		median := float64(h.ValueAtQuantile(50)) / 1e6
		i := slices.IndexFunc(pts, func(p chart.Point) bool { return p.X > 2 })
		if i < 1 || pts[i-1].Y > median || pts[i].Y < median {
			t.Errorf("%s: p50 %g not between the points about x = 2: %+v", name, median, pts[max(i-1, 0):i+1])
		}
	}
	if _, err := mergeHlog("none.hlog", nil); err == nil {
		t.Error("a log without intervals merged")
	}
}
