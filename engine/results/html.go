package results

import (
	"cmp"
	_ "embed"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results/chart"
)

//go:embed report.css
var reportCSS string

// HTML is the report.html reporter: one self-contained page (inline CSS,
// SVG charts drawn here, no script, no network) with the overview, the
// charts people look at first (latency and throughput against clients,
// each scenario across scales, load rates, cold against warm, windows
// over time), the checks, the tables, the settings and the environment.
// It prints on paper as it reads on screen.
func HTML(r *Run, w io.Writer) error {
	timings := r.Points()
	loads := r.LatestLoads()
	rank := scaleRanks(timings, loads, r.Sizes)
	p := &page{}
	p.section("overview", "Overview", func() { p.overview(r, timings, loads, rank) })
	p.capacityHTML(r)
	if r.Findings != "" {
		p.section("findings", "Findings", func() { p.f("<pre class=\"findings\">%s</pre>", esc(r.Findings)) })
	}
	p.section("checks", "Checks", func() { p.checks(r.Checks) })
	if cs := sweepCharts(timings, rank); len(cs) > 0 {
		p.section("clients", "Latency and throughput against clients", func() { p.charts(cs) })
	}
	if cs := scenarioCharts(timings, rank); len(cs) > 0 {
		p.section("scales", "Scenarios across backends and scales", func() { p.charts(cs) })
	}
	if len(loads) > 0 {
		p.section("loads", "Load rates per backend", func() {
			p.charts([]chart.Chart{loadChart(loads, rank)})
			p.loadTable(loads, rank)
		})
	}
	if cs := coldWarmCharts(timings, rank); len(cs) > 0 {
		p.section("coldwarm", "Cold against warm", func() { p.charts(cs) })
	}
	if cs := windowCharts(r.Windows); len(cs) > 0 {
		p.section("windows", "Windows over time", func() { p.charts(cs) })
	}
	if len(timings) > 0 {
		p.section("timings", "All points", func() { p.timingTable(timings, rank) })
	}
	if set := r.BackendSettings(); len(set) > 0 {
		p.section("settings", "Settings in force per backend", func() { p.settings(set, r.Scales()) })
	}
	if len(r.Env) > 0 {
		p.section("environment", "Environment", func() { p.env(r) })
	}

	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mentat-spec report: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", esc(r.Name), reportCSS)
	fmt.Fprintf(&b, "<header><h1>mentat-spec report: %s</h1>", esc(r.Name))
	if st := r.Started(); !st.IsZero() {
		fmt.Fprintf(&b, "<p class=\"meta\">Started %s.", esc(st.UTC().Format("2006-01-02 15:04:05 UTC")))
		if !r.LastWrite.IsZero() && r.LastWrite.After(st) {
			fmt.Fprintf(&b, " %s until the last result was written.", esc(fmtDuration(r.LastWrite.Sub(st))))
		}
		b.WriteString(" Generated from the files of the results directory; summary.md and results.json hold the same data.</p>")
	}
	b.WriteString("</header>\n<nav><ul>")
	for _, s := range p.toc {
		fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", s[0], esc(s[1]))
	}
	b.WriteString("</ul></nav>\n<main>\n")
	b.WriteString(p.b.String())
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return html.EscapeString(s) }

// page collects the sections and their table of contents.
type page struct {
	b   strings.Builder
	toc [][2]string
}

func (p *page) f(format string, a ...any) { fmt.Fprintf(&p.b, format, a...) }

func (p *page) section(id, title string, body func()) {
	p.toc = append(p.toc, [2]string{id, title})
	p.f("<section id=\"%s\">\n<h2>%s</h2>\n", id, esc(title))
	body()
	p.f("</section>\n")
}

func (p *page) charts(cs []chart.Chart) {
	p.f("<div class=\"charts\">\n")
	for _, c := range cs {
		p.f("<figure>%s</figure>\n", c.SVG())
	}
	p.f("</div>\n")
}

// table writes an HTML table; right marks numeric columns.
func (p *page) table(head []string, right []bool, rows [][]string) {
	p.f("<div class=\"scroll\"><table>\n<thead><tr>")
	for i, h := range head {
		p.f("<th%s>%s</th>", numClass(right, i), esc(h))
	}
	p.f("</tr></thead>\n<tbody>\n")
	for _, row := range rows {
		p.f("<tr>")
		for i, c := range row {
			p.f("<td%s>%s</td>", numClass(right, i), esc(c))
		}
		p.f("</tr>\n")
	}
	p.f("</tbody></table></div>\n")
}

func numClass(right []bool, i int) string {
	if i < len(right) && right[i] {
		return ` class="num"`
	}
	return ""
}

func (p *page) overview(r *Run, timings []Row, loads []LoadRow, rank map[string]int) {
	var scenarios []string
	for _, t := range timings {
		if !slices.Contains(scenarios, t.Scenario) {
			scenarios = append(scenarios, t.Scenario)
		}
	}
	p.f("<ul>\n<li><b>Backends:</b> %s</li>\n<li><b>Scales:</b> %s</li>\n<li><b>Scenarios:</b> %s</li>\n",
		esc(orNone(r.Backends())), esc(orNone(byRank(rank))), esc(orNone(scenarios)))
	if d := r.EnvValue("dataset"); d != "" {
		p.f("<li><b>Dataset:</b> %s</li>\n", esc(d))
	}
	nd := scaleDatoms(timings, loads)
	for _, s := range byRank(rank) {
		p.f("<li><b>Scale %s:</b> %s</li>\n", esc(s), esc(r.datasetLine(s, nd[s])))
	}
	p.f("</ul>\n")
	if rows := headlineRows(headlines(r, timings, loads, rank)); len(rows) > 0 {
		p.table(headlineHead, headlineRight, rows)
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func (p *page) checks(lines []CheckLine) {
	var c CheckCounts
	for _, l := range lines {
		c.add(l.Status)
	}
	if len(lines) == 0 {
		p.f("<p>No checks were recorded.</p>\n")
		return
	}
	verdict, class := "no check failed", "pass"
	switch {
	case c.Fail > 0:
		verdict, class = "the run FAILED", "fail"
	case c.Threshold > 0:
		verdict, class = "a threshold was CROSSED", "fail"
	}
	p.f("<p class=\"verdict %s\">%s: %s.</p>\n", class, esc(string(appendCounts(nil, c))), verdict)
	// Failures first, then the rest in file order.
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(x, y CheckLine) int {
		return cmp.Compare(statusOrder(x.Status), statusOrder(y.Status))
	})
	p.f("<div class=\"scroll\"><table>\n<thead><tr><th>status</th><th>scenario</th><th>backend</th><th>scale</th><th>check</th><th>detail</th></tr></thead>\n<tbody>\n")
	for _, l := range sorted {
		p.f("<tr><td class=\"%s\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			strings.ToLower(l.Status), esc(l.Status), esc(l.Scenario), esc(l.Backend), esc(l.Scale), esc(l.Name), esc(l.Detail))
	}
	p.f("</tbody></table></div>\n")
}

func statusOrder(s string) int {
	switch s {
	case Fail, Threshold:
		return 0
	case Skip:
		return 1
	}
	return 2
}

func (p *page) loadTable(loads []LoadRow, rank map[string]int) {
	loads = slices.Clone(loads)
	slices.SortStableFunc(loads, func(x, y LoadRow) int {
		return cmp.Or(cmp.Compare(x.Backend, y.Backend), cmp.Compare(rank[x.Scale], rank[y.Scale]))
	})
	var rows [][]string
	for _, l := range loads {
		size, note := "", ""
		if l.SizeBytes != nil {
			size = humanBytes(*l.SizeBytes)
		}
		if l.Ceiling {
			note = "ceiling (load cap hit; the rate reached)"
		}
		rows = append(rows, []string{l.Backend, l.Scale, fmtInt(l.NDatoms), fmtSecs(l.WallS, 1), fmtInt(int64(math.Round(l.DatomsPerS))),
			optSecs(l.PostLoadS), optSecs(l.AnalyzeS), optSecs(l.VacuumS), size, strconv.Itoa(l.Jobs), note})
	}
	p.table([]string{"backend", "scale", "datoms", "wall s", "datoms/s", "post-load s", "ANALYZE s", "VACUUM s", "store size", "jobs", "note"},
		[]bool{false, false, true, true, true, true, true, true, true, true, false}, rows)
}

func (p *page) timingTable(timings []Row, rank map[string]int) {
	rows := slices.Clone(timings)
	order := map[string]int{}
	for _, t := range timings {
		if _, ok := order[t.Scenario]; !ok {
			order[t.Scenario] = len(order)
		}
	}
	slices.SortStableFunc(rows, func(x, y Row) int {
		return cmp.Or(cmp.Compare(order[x.Scenario], order[y.Scenario]), cmp.Compare(x.Backend, y.Backend),
			cmp.Compare(rank[x.Scale], rank[y.Scale]), cmp.Compare(x.Clients, y.Clients))
	})
	var cells [][]string
	for _, r := range rows {
		cells = append(cells, []string{r.Scenario, r.Backend, r.Scale, strconv.Itoa(r.Clients), r.Op, strconv.FormatInt(r.Count, 10),
			fmtMs(r.P50Ms), fmtMs(r.P95Ms), fmtMs(r.P99Ms), fmtMs(r.MaxMs), fmtRate(r.Throughput), strconv.FormatInt(r.Errors, 10), strconv.Itoa(r.Reps)})
	}
	p.table([]string{"scenario", "backend", "scale", "clients", "op", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "ops/s", "errors", "reps"},
		[]bool{false, false, false, true, false, true, true, true, true, true, true, true, true}, cells)
}

func (p *page) settings(set []BackendSetting, scales []string) {
	var rows [][]string
	for _, s := range set {
		rows = append(rows, []string{s.Backend, s.Key, s.Value(scales)})
	}
	p.f("<p>Read back from each database after it was configured; a value that differs by scale is shown per scale.</p>\n")
	p.table([]string{"backend", "key", "value"}, nil, rows)
}

func (p *page) env(r *Run) {
	var rows [][]string
	for _, kv := range r.Env {
		if !strings.HasPrefix(kv.Key, "backend.") {
			rows = append(rows, []string{kv.Key, kv.Value})
		}
	}
	p.f("<p>env.txt, each key's latest value (secrets are redacted when written).</p>\n")
	p.table([]string{"key", "value"}, nil, rows)
	if len(r.Plans) > 0 || len(r.Logs) > 0 {
		p.f("<p><b>Query plans</b> (plans/): %s</p>\n", esc(orNone(r.Plans)))
		p.f("<p><b>Error logs</b> (logs/): %s</p>\n", esc(orNone(r.Logs)))
	}
}
