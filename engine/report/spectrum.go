package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The latency distribution of a point, as HDR plots draw it: latency at
// each percentile, the percentiles on a log scale of 1/(1-q) so that the
// tail (99, 99.9, 99.99) gets as much room as the body.

// spectrumTicks label the percentile axis at 1/(1-q) = 1, 2, 10, 100...
var spectrumTicks = []chart.Tick{{At: 1, Label: "0"}, {At: 2, Label: "50"}, {At: 10, Label: "90"}, {At: 100, Label: "99"},
	{At: 1e3, Label: "99.9"}, {At: 1e4, Label: "99.99"}, {At: 1e5, Label: "99.999"}}

// spectrumMax is the furthest position drawn: p99.999.
const spectrumMax = 1e5

// spectrumCharts draws, for every measured point of the run with an HDR
// log in hdr/, its latency at each percentile, one line per backend: one
// chart per scenario, scale, client count and op.
func spectrumCharts(hlogs map[string][]*hdrhistogram.Histogram, timings []results.Row, rank map[string]int, pal map[string]int) []chart.Chart {
	type group struct {
		scenario, scale string
		clients         int
		op              string
	}
	order := map[string]int{}
	for _, sc := range firstSeen(timings, func(r results.Row) string { return r.Scenario }) {
		order[sc] = len(order)
	}
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool { return !measured(r) })
	slices.SortStableFunc(rows, func(x, y results.Row) int {
		return cmp.Or(cmp.Compare(order[x.Scenario], order[y.Scenario]), cmp.Compare(rank[x.Scale], rank[y.Scale]),
			cmp.Compare(x.Clients, y.Clients), cmp.Compare(x.Op, y.Op), cmp.Compare(x.Backend, y.Backend))
	})
	var out []chart.Chart
	at := map[group]int{}
	for _, r := range rows {
		name := results.HlogName(r)
		h, err := mergeHlog(name, hlogs[name])
		if err != nil {
			// No log, or one a run stopped mid-write (a full disk): the
			// point's distribution is left out, the report still written.
			continue
		}
		if h.TotalCount() == 0 {
			continue
		}
		g := group{r.Scenario, r.Scale, r.Clients, r.Op}
		i, ok := at[g]
		if !ok {
			i = len(out)
			at[g] = i
			out = append(out, chart.Chart{
				Title:  fmt.Sprintf("%s at %s, %s, %s: latency distribution", r.Scenario, r.Scale, Plural(r.Clients, "client", "clients"), r.Op),
				XLabel: "percentile (log scale of 1/(1-q))", YLabel: "ms", LogX: true, LogY: true, XTicks: spectrumTicks,
				XMin: 1, XMax: spectrumMax, NoDots: true, Palette: pal,
			})
		}
		out[i].Series = append(out[i].Series, chart.Series{Name: r.Backend, Key: r.Backend, Points: spectrum(h)})
	}
	return out
}

// spectrum returns the latency in ms of h at positions x = 1/(1-q), ten
// per decade from q = 0, up to the last the count can tell apart (a
// thousand calls say nothing of p99.99) or p99.999.
func spectrum(h *hdrhistogram.Histogram) []chart.Point {
	last := math.Min(float64(h.TotalCount()), spectrumMax)
	var out []chart.Point
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/10)
		if x > last {
			x = last
		}
		out = append(out, chart.Point{X: x, Y: float64(h.ValueAtQuantile(100*(1-1/x))) / 1e6})
		if x >= last {
			return out
		}
	}
}

// mergeHlog merges every interval of the HDR log name (latencies in ns).
func mergeHlog(path string, hs []*hdrhistogram.Histogram) (*hdrhistogram.Histogram, error) {
	if len(hs) == 0 {
		return nil, fmt.Errorf("report: %s has no interval", path)
	}
	all := hs[0]
	for _, h := range hs[1:] {
		if dropped := all.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("report: %s: %d values out of the histogram's range", path, dropped)
		}
	}
	return all, nil
}
