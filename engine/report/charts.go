package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The report's charts, built from the loaded rows. Latencies are drawn on
// a log axis: a run's scenarios span microseconds to seconds.

// measured reports whether a row holds a measured latency (not a
// ceiling, not a cold/warm one-shot).
func measured(r results.Row) bool {
	return r.Op != "ceiling" && r.Op != "open" && !strings.HasPrefix(r.Op, "cold_") && !strings.HasPrefix(r.Op, "warm_") && r.Count > 0
}

// firstSeen returns the distinct keys of rows in first-seen order.
func firstSeen[T any](rows []T, key func(T) string) []string {
	var out []string
	for _, r := range rows {
		if k := key(r); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// sweepCharts draws, for each scenario and scale measured at more than one
// client count, its latency percentiles and its throughput against
// clients, one line per backend (and op).
func sweepCharts(timings []results.Row, rank map[string]int) []chart.Chart {
	var out []chart.Chart
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool { return !measured(r) })
	for _, sc := range firstSeen(rows, func(r results.Row) string { return r.Scenario }) {
		for _, scale := range results.ByRank(rank) {
			var pts []results.Row
			clients := map[int]bool{}
			for _, r := range rows {
				if r.Scenario == sc && r.Scale == scale {
					pts = append(pts, r)
					clients[r.Clients] = true
				}
			}
			if len(clients) < 2 {
				continue
			}
			slices.SortStableFunc(pts, func(x, y results.Row) int { return x.Clients - y.Clients })
			lines := firstSeen(pts, func(r results.Row) string { return r.Backend + " " + r.Op })
			lat := chart.Chart{Title: fmt.Sprintf("%s at %s: latency against clients", sc, scale), XLabel: "clients", YLabel: "ms", LogX: true, LogY: true}
			thr := chart.Chart{Title: fmt.Sprintf("%s at %s: throughput against clients", sc, scale), XLabel: "clients", YLabel: "ops/s", LogX: true}
			for _, line := range lines {
				p50, p95, p99 := chart.Series{Name: line + " p50", Key: line}, chart.Series{Name: line + " p95", Key: line, Dash: 1}, chart.Series{Name: line + " p99", Key: line, Dash: 2}
				ops := chart.Series{Name: line}
				for _, r := range pts {
					if r.Backend+" "+r.Op != line {
						continue
					}
					x := float64(r.Clients)
					p50.Points = append(p50.Points, chart.Point{X: x, Y: r.P50Ms})
					p95.Points = append(p95.Points, chart.Point{X: x, Y: r.P95Ms})
					p99.Points = append(p99.Points, chart.Point{X: x, Y: r.P99Ms})
					ops.Points = append(ops.Points, chart.Point{X: x, Y: r.Throughput})
				}
				lat.Series = append(lat.Series, p50, p95, p99)
				thr.Series = append(thr.Series, ops)
			}
			out = append(out, lat, thr)
		}
	}
	return out
}

// scenarioCharts draws the median latency of every scenario per backend
// at each scale (at its smallest client count), and, when the run has
// more than one scale, each scenario's median across scales.
func scenarioCharts(timings []results.Row, rank map[string]int) []chart.Chart {
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool { return !measured(r) })
	if len(rows) == 0 {
		return nil
	}
	// The smallest client count of each (scenario, backend, scale, op).
	type key struct{ sc, be, scale, op string }
	least := map[key]results.Row{}
	for _, r := range rows {
		k := key{r.Scenario, r.Backend, r.Scale, r.Op}
		if l, ok := least[k]; !ok || r.Clients < l.Clients {
			least[k] = r
		}
	}
	scenarios := firstSeen(rows, func(r results.Row) string { return r.Scenario })
	backends := firstSeen(rows, func(r results.Row) string { return r.Backend })
	slices.Sort(backends)
	scales := results.ByRank(rank)
	var out []chart.Chart
	for _, scale := range scales {
		c := chart.Chart{Title: fmt.Sprintf("Median latency per scenario at %s", scale), YLabel: "p50 ms", Categories: scenarios, LogY: true, Bars: true}
		for _, be := range backends {
			s := chart.Series{Name: be}
			for i, sc := range scenarios {
				if r, ok := pick(least, func(k key) bool { return k.sc == sc && k.be == be && k.scale == scale }); ok {
					s.Points = append(s.Points, chart.Point{X: float64(i), Y: r.P50Ms})
				}
			}
			if len(s.Points) > 0 {
				c.Series = append(c.Series, s)
			}
		}
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	if len(scales) < 2 {
		return out
	}
	for _, sc := range scenarios {
		c := chart.Chart{Title: fmt.Sprintf("%s across scales", sc), YLabel: "ms", Categories: scales, LogY: true}
		for _, be := range backends {
			p50, p99 := chart.Series{Name: be + " p50", Key: be}, chart.Series{Name: be + " p99", Key: be, Dash: 2}
			for i, scale := range scales {
				if r, ok := pick(least, func(k key) bool { return k.sc == sc && k.be == be && k.scale == scale }); ok {
					p50.Points = append(p50.Points, chart.Point{X: float64(i), Y: r.P50Ms})
					p99.Points = append(p99.Points, chart.Point{X: float64(i), Y: r.P99Ms})
				}
			}
			if len(p50.Points) > 0 {
				c.Series = append(c.Series, p50, p99)
			}
		}
		out = append(out, c)
	}
	return out
}

// pick returns the row of the smallest key matching ok (several ops of
// one scenario: the first op in name order), deterministically.
func pick[K comparable](m map[K]results.Row, ok func(K) bool) (results.Row, bool) {
	var best results.Row
	found := false
	for k, r := range m {
		if ok(k) && (!found || r.Op < best.Op) {
			best, found = r, true
		}
	}
	return best, found
}

// loadChart draws bulk-load rates: one bar per backend at each scale.
func loadChart(loads []results.LoadRow, rank map[string]int) chart.Chart {
	scales := results.ByRank(rank)
	c := chart.Chart{Title: "Bulk load rate per backend", YLabel: "datoms/s", Categories: scales, Bars: true}
	backends := firstSeen(loads, func(l results.LoadRow) string { return l.Backend })
	slices.Sort(backends)
	for _, be := range backends {
		s := chart.Series{Name: be}
		for _, l := range loads {
			if l.Backend == be {
				s.Points = append(s.Points, chart.Point{X: float64(slices.Index(scales, l.Scale)), Y: l.DatomsPerS})
			}
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// coldWarmCharts draws, per scenario and scale, each query's first call
// after a restart (cold_*) next to its warm median (warm_*), and the
// reopen time (open).
func coldWarmCharts(timings []results.Row, rank map[string]int) []chart.Chart {
	var out []chart.Chart
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool {
		return r.Op != "open" && !strings.HasPrefix(r.Op, "cold_") && !strings.HasPrefix(r.Op, "warm_")
	})
	for _, sc := range firstSeen(rows, func(r results.Row) string { return r.Scenario }) {
		for _, scale := range results.ByRank(rank) {
			var groups []string
			type gk struct{ group, kind string }
			val := map[gk]float64{}
			for _, r := range rows {
				if r.Scenario != sc || r.Scale != scale {
					continue
				}
				kind, q, _ := strings.Cut(r.Op, "_")
				if r.Op == "open" {
					kind, q = "cold", "open"
				}
				g := r.Backend + " " + q
				if !slices.Contains(groups, g) {
					groups = append(groups, g)
				}
				val[gk{g, kind}] = r.P50Ms
			}
			if len(groups) == 0 {
				continue
			}
			c := chart.Chart{Title: fmt.Sprintf("%s at %s: cold against warm", sc, scale), YLabel: "ms", Categories: groups, LogY: true, Bars: true}
			for _, kind := range []string{"cold", "warm"} {
				s := chart.Series{Name: kind}
				for i, g := range groups {
					if v, ok := val[gk{g, kind}]; ok {
						s.Points = append(s.Points, chart.Point{X: float64(i), Y: v})
					}
				}
				c.Series = append(c.Series, s)
			}
			out = append(out, c)
		}
	}
	return out
}

// windowCharts draws each scenario's windows over time: p50 and p99 of
// every (backend, scale, clients, stream) against the window's start.
func windowCharts(windows []results.WindowRow) []chart.Chart {
	var out []chart.Chart
	for _, sc := range firstSeen(windows, func(w results.WindowRow) string { return w.Scenario }) {
		lat := chart.Chart{Title: fmt.Sprintf("%s: latency over time", sc), XLabel: "s since start", YLabel: "ms", LogY: true}
		ops := chart.Chart{Title: fmt.Sprintf("%s: calls per window", sc), XLabel: "s since start", YLabel: "calls"}
		name := func(w results.WindowRow) string {
			n := fmt.Sprintf("%s %s c%d", w.Backend, w.Scale, w.Clients)
			if w.Op != "" {
				n += " " + w.Op
			}
			return n
		}
		var these []results.WindowRow
		for _, w := range windows {
			if w.Scenario == sc {
				these = append(these, w)
			}
		}
		for _, line := range firstSeen(these, name) {
			p50, p99, n := chart.Series{Name: line + " p50", Key: line}, chart.Series{Name: line + " p99", Key: line, Dash: 2}, chart.Series{Name: line}
			for _, w := range these {
				if name(w) == line {
					p50.Points = append(p50.Points, chart.Point{X: w.StartS, Y: w.P50Ms})
					p99.Points = append(p99.Points, chart.Point{X: w.StartS, Y: w.P99Ms})
					n.Points = append(n.Points, chart.Point{X: w.StartS, Y: float64(w.Count)})
				}
			}
			lat.Series = append(lat.Series, p50, p99)
			ops.Series = append(ops.Series, n)
		}
		out = append(out, lat, ops)
	}
	return out
}
