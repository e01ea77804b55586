package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
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

// palette gives each backend the run measured its color: its position
// in the sorted list of the backends of timings and loads (not a check's
// "a+b"), the same on every chart of the page.
func palette(timings []results.Row, loads []results.LoadRow) map[string]int {
	seen := map[string]bool{}
	for _, t := range timings {
		seen[t.Backend] = true
	}
	for _, l := range loads {
		seen[l.Backend] = true
	}
	p := make(map[string]int, len(seen))
	for i, b := range slices.Sorted(maps.Keys(seen)) {
		p[b] = i
	}
	return p
}

// repSpread holds each point's rep rows (raw.csv), the last run of a
// point when it was run again.
type repSpread map[results.Key][]results.Row

func spreadOf(raw []results.Row) repSpread {
	s := repSpread{}
	for _, r := range raw {
		k := r.Key()
		if r.Rep <= 1 {
			s[k] = nil // a rerun starts its reps again
		}
		s[k] = append(s[k], r)
	}
	return s
}

// of returns f of every rep of the point of r.
func (s repSpread) of(r results.Row, f func(results.Row) float64) []float64 {
	var out []float64
	for _, x := range s[r.Key()] {
		out = append(out, f(x))
	}
	return out
}

func p50(r results.Row) float64 { return r.P50Ms }
func p99(r results.Row) float64 { return r.P99Ms }

// sweepCharts draws, for each scenario and scale whose points differ by
// client count, latency percentiles and throughput (log scale: backends
// differ by orders of magnitude) against clients: one
// line per backend and op measured at more than one client count (a
// writer at 1 client beside readers at 2 is not a sweep).
func sweepCharts(timings []results.Row, spread repSpread, rank map[string]int, pal map[string]int) []chart.Chart {
	var out []chart.Chart
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool { return !measured(r) })
	line := func(r results.Row) string { return r.Backend + " " + r.Op }
	for _, sc := range firstSeen(rows, func(r results.Row) string { return r.Scenario }) {
		for _, scale := range results.ByRank(rank) {
			var pts []results.Row
			clients := map[string]map[int]bool{}
			for _, r := range rows {
				if r.Scenario == sc && r.Scale == scale {
					pts = append(pts, r)
					if clients[line(r)] == nil {
						clients[line(r)] = map[int]bool{}
					}
					clients[line(r)][r.Clients] = true
				}
			}
			lines := slices.DeleteFunc(firstSeen(pts, line), func(l string) bool { return len(clients[l]) < 2 })
			if len(lines) == 0 {
				continue
			}
			slices.SortStableFunc(pts, func(x, y results.Row) int { return x.Clients - y.Clients })
			// The axis is labelled at the client counts measured.
			var ticks []chart.Tick
			for _, r := range pts {
				if slices.Contains(lines, line(r)) && !slices.ContainsFunc(ticks, func(t chart.Tick) bool { return t.At == float64(r.Clients) }) {
					ticks = append(ticks, chart.Tick{At: float64(r.Clients), Label: strconv.Itoa(r.Clients)})
				}
			}
			lat := chart.Chart{Title: fmt.Sprintf("%s at %s: latency against clients", sc, scale), XLabel: "clients", YLabel: "ms", LogX: true, LogY: true, XTicks: ticks, Palette: pal}
			thr := chart.Chart{Title: fmt.Sprintf("%s at %s: throughput against clients", sc, scale), XLabel: "clients", YLabel: "ops/s", LogX: true, LogY: true, XTicks: ticks, Palette: pal}
			for _, l := range lines {
				var be string
				pc50, pc95, pc99 := chart.Series{Name: l + " p50"}, chart.Series{Name: l + " p95", Dash: 1}, chart.Series{Name: l + " p99", Dash: 2}
				ops := chart.Series{Name: l}
				for _, r := range pts {
					if line(r) != l {
						continue
					}
					be = r.Backend
					x := float64(r.Clients)
					pc50.Points = append(pc50.Points, chart.Point{X: x, Y: r.P50Ms, Reps: spread.of(r, p50)})
					pc95.Points = append(pc95.Points, chart.Point{X: x, Y: r.P95Ms})
					pc99.Points = append(pc99.Points, chart.Point{X: x, Y: r.P99Ms, Reps: spread.of(r, p99)})
					ops.Points = append(ops.Points, chart.Point{X: x, Y: r.Throughput, Reps: spread.of(r, func(r results.Row) float64 { return r.Throughput })})
				}
				pc50.Key, pc95.Key, pc99.Key, ops.Key = be, be, be, be
				lat.Series = append(lat.Series, pc50, pc95, pc99)
				thr.Series = append(thr.Series, ops)
			}
			out = append(out, lat, thr)
		}
	}
	return out
}

// scenarioCharts draws the p50 and p99 of every scenario per backend at
// each scale (at its smallest client count), with the spread of their
// reps, and, when the run has more than one scale, each scenario's p50
// and p99 across scales.
func scenarioCharts(timings []results.Row, spread repSpread, rank map[string]int, pal map[string]int) []chart.Chart {
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
		c := chart.Chart{Title: fmt.Sprintf("p50 and p99 per scenario at %s", scale), YLabel: "ms (p99 light; whiskers: reps)", Categories: scenarios, LogY: true, Bars: true, Palette: pal}
		for _, be := range backends {
			s50, s99 := chart.Series{Name: be + " p50", Key: be}, chart.Series{Name: be + " p99", Key: be, Dash: 2}
			for i, sc := range scenarios {
				if r, ok := pick(least, func(k key) bool { return k.sc == sc && k.be == be && k.scale == scale }); ok {
					s50.Points = append(s50.Points, chart.Point{X: float64(i), Y: r.P50Ms, Reps: spread.of(r, p50)})
					s99.Points = append(s99.Points, chart.Point{X: float64(i), Y: r.P99Ms, Reps: spread.of(r, p99)})
				}
			}
			if len(s50.Points) > 0 {
				c.Series = append(c.Series, s50, s99)
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
		c := chart.Chart{Title: fmt.Sprintf("%s across scales", sc), YLabel: "ms", Categories: scales, LogY: true, Palette: pal}
		for _, be := range backends {
			s50, s99 := chart.Series{Name: be + " p50", Key: be}, chart.Series{Name: be + " p99", Key: be, Dash: 2}
			for i, scale := range scales {
				if r, ok := pick(least, func(k key) bool { return k.sc == sc && k.be == be && k.scale == scale }); ok {
					s50.Points = append(s50.Points, chart.Point{X: float64(i), Y: r.P50Ms, Reps: spread.of(r, p50)})
					s99.Points = append(s99.Points, chart.Point{X: float64(i), Y: r.P99Ms, Reps: spread.of(r, p99)})
				}
			}
			if len(s50.Points) > 0 {
				c.Series = append(c.Series, s50, s99)
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
func loadChart(loads []results.LoadRow, rank map[string]int, pal map[string]int) chart.Chart {
	scales := results.ByRank(rank)
	c := chart.Chart{Title: "Bulk load rate per backend", YLabel: "datoms/s", Categories: scales, Bars: true, Palette: pal}
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
// after a restart (cold_*) next to its warm median (warm_*, light), and
// the reopen time (open), one pair of bars per backend in its color.
func coldWarmCharts(timings []results.Row, rank map[string]int, pal map[string]int) []chart.Chart {
	var out []chart.Chart
	rows := slices.DeleteFunc(slices.Clone(timings), func(r results.Row) bool {
		return r.Op != "open" && !strings.HasPrefix(r.Op, "cold_") && !strings.HasPrefix(r.Op, "warm_")
	})
	for _, sc := range firstSeen(rows, func(r results.Row) string { return r.Scenario }) {
		for _, scale := range results.ByRank(rank) {
			var queries, backends []string
			type gk struct{ be, query, kind string }
			val := map[gk]float64{}
			for _, r := range rows {
				if r.Scenario != sc || r.Scale != scale {
					continue
				}
				kind, q, _ := strings.Cut(r.Op, "_")
				if r.Op == "open" {
					kind, q = "cold", "open"
				}
				if !slices.Contains(queries, q) {
					queries = append(queries, q)
				}
				if !slices.Contains(backends, r.Backend) {
					backends = append(backends, r.Backend)
				}
				val[gk{r.Backend, q, kind}] = r.P50Ms
			}
			if len(queries) == 0 {
				continue
			}
			slices.Sort(backends)
			c := chart.Chart{Title: fmt.Sprintf("%s at %s: cold against warm", sc, scale), YLabel: "ms (cold, warm light)", Categories: queries, LogY: true, Bars: true, Palette: pal}
			for _, be := range backends {
				for dash, kind := range []string{"cold", "warm"} {
					s := chart.Series{Name: be + " " + kind, Key: be, Dash: dash}
					for i, q := range queries {
						if v, ok := val[gk{be, q, kind}]; ok {
							s.Points = append(s.Points, chart.Point{X: float64(i), Y: v})
						}
					}
					c.Series = append(c.Series, s)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// windowCharts draws each scenario's windows over time: p50 and p99 of
// every (backend, scale, clients, stream) against the window's start.
func windowCharts(windows []results.WindowRow, pal map[string]int) []chart.Chart {
	var out []chart.Chart
	for _, sc := range firstSeen(windows, func(w results.WindowRow) string { return w.Scenario }) {
		lat := chart.Chart{Title: fmt.Sprintf("%s: latency over time", sc), XLabel: "s since start", YLabel: "ms", LogY: true, Palette: pal}
		ops := chart.Chart{Title: fmt.Sprintf("%s: calls per window", sc), XLabel: "s since start", YLabel: "calls", Palette: pal}
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
			p50, p99, n := chart.Series{Name: line + " p50"}, chart.Series{Name: line + " p99", Dash: 2}, chart.Series{Name: line}
			for _, w := range these {
				if name(w) == line {
					p50.Key, p99.Key, n.Key = w.Backend, w.Backend, w.Backend
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
