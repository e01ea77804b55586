package report

import (
	"cmp"
	"html/template"
	"io"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report/chart"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The report's own sections; the page around them is Page. Every
// literal newline is output.
const htmlTemplates = `{{define "meta"}}{{with .Started}}<p class="meta">Started {{.}}.{{with $.Took}} {{.}} until the last result was written.{{end}} Generated from the files of the results directory; summary.md and results.json hold the same data.</p>{{end}}{{end}}
{{- define "overview"}}<ul>
<li><b>Backends:</b> {{.Backends}}</li>
<li><b>Scales:</b> {{.Scales}}</li>
<li><b>Scenarios:</b> {{.Scenarios}}</li>
{{with .Dataset}}<li><b>Dataset:</b> {{.}}</li>
{{end}}{{range .ScaleLines}}<li><b>Scale {{.Name}}:</b> {{.Line}}</li>
{{end}}</ul>
{{end}}
{{- define "findings"}}<pre class="findings">{{.}}</pre>{{end}}
{{- define "nochecks"}}<p>No checks were recorded.</p>
{{end}}
{{- define "checks"}}<p class="verdict {{.Class}}">{{.Counts}}: {{.Verdict}}.</p>
<div class="scroll"><table>
<thead><tr><th>status</th><th>scenario</th><th>backend</th><th>scale</th><th>check</th><th>detail</th></tr></thead>
<tbody>
{{range .Lines}}<tr><td class="{{lower .Status}}">{{.Status}}</td><td>{{.Scenario}}</td><td>{{.Backend}}</td><td>{{.Scale}}</td><td>{{.Name}}</td><td>{{.Detail}}{{with .Why}}<div class="why">why, against {{.Against}}:{{if .Reasons}}<ol>{{range .Reasons}}<li>{{.}}</li>{{end}}</ol>{{else}} {{$.NoEvidence}}{{end}}</div>{{end}}</td></tr>
{{end}}</tbody></table></div>
{{end}}
{{- define "charts"}}<div class="charts">
{{range .}}<figure>{{.}}</figure>
{{end}}</div>
{{end}}
{{- define "settings"}}<p>Read back from each database after it was configured; a value that differs by scale is shown per scale.</p>
{{end}}
{{- define "env"}}<p>env.txt, each key's latest value (secrets are redacted when written).</p>
{{end}}
{{- define "files"}}{{with .Plans}}<p><b>Query plans</b> (plans/): {{range $i, $f := .}}{{if $i}}, {{end}}<a href="{{$f.Href}}">{{$f.Name}}</a>{{end}}</p>
{{end}}{{with .Logs}}<p><b>Logs</b> (logs/): {{range $i, $f := .}}{{if $i}}, {{end}}<a href="{{$f.Href}}">{{$f.Name}}</a>{{end}}</p>
{{end}}{{end}}
{{- define "onerep"}}<p>Every point ran one rep: there is no spread across reps to draw (more reps draw each point's reps as whiskers).</p>
{{end}}
{{- define "noise"}}<p>The machine while each point was measured (noise.csv; points numbered in their scenario's order, each rep's share of the CPU weighted by its length): a busy machine (other processes, steal) makes latencies longer and noisier.</p>
{{end}}`

var htmlSections = template.Must(template.New("html").Funcs(template.FuncMap{"lower": strings.ToLower}).Parse(htmlTemplates))

// HTML is the report.html format: one self-contained page (inline CSS,
// SVG charts drawn here, no script, no network) with the overview, the
// charts people look at first (latency and throughput against clients,
// each scenario across scales, load rates, cold against warm, windows
// over time), the checks, the tables, the settings and the environment.
// It prints on paper as it reads on screen.
func HTML(r *results.Run, w io.Writer) error {
	timings := r.Points()
	loads := r.LatestLoads()
	rank := results.ScaleRanks(timings, loads, r.Sizes)
	pal := palette(r.Timings, r.Loads)
	spread := spreadOf(r.Raw)
	spectra := spectrumCharts(r.Hlogs, timings, rank, pal)
	noise := r.Noise
	b := &htmlBuilder{}
	b.section("overview", "Overview", func() { b.overview(r, timings, loads, rank) })
	b.kindSectionsHTML(r)
	if r.Findings != "" {
		b.section("findings", "Findings", func() { b.render("findings", r.Findings) })
	}
	b.section("checks", "Checks", func() { b.checks(r.Checks, checkWhys(r)) })
	if cs := sweepCharts(timings, spread, rank, pal); len(cs) > 0 {
		b.section("clients", "Latency and throughput against clients", func() { b.charts(cs) })
	}
	if cs := scenarioCharts(timings, spread, rank, pal); len(cs) > 0 {
		b.section("scales", "Scenarios across backends and scales", func() {
			if !slices.ContainsFunc(timings, func(t results.Row) bool { return t.Reps > 1 }) {
				b.render("onerep", nil)
			}
			b.charts(cs)
		})
	}
	if len(spectra) > 0 {
		b.section("distribution", "Latency distribution per point", func() { b.charts(spectra) })
	}
	if len(loads) > 0 {
		b.section("loads", "Load rates per backend", func() {
			b.charts([]chart.Chart{loadChart(loads, rank, pal)})
			b.loadTable(loads, rank)
		})
	}
	if cs := coldWarmCharts(timings, rank, pal); len(cs) > 0 {
		b.section("coldwarm", "Cold against warm", func() { b.charts(cs) })
	}
	if cs := windowCharts(r.Windows, pal); len(cs) > 0 {
		b.section("windows", "Windows over time", func() { b.charts(cs) })
	}
	if len(timings) > 0 {
		b.section("timings", "All points", func() { b.timingTable(timings, rank) })
	}
	if len(noise) > 0 {
		b.section("machine", "Machine load per point", func() { b.noiseTable(noise, rank) })
	}
	if set := r.BackendSettings(); len(set) > 0 {
		b.section("settings", "Settings in force per backend", func() { b.settings(set, r.Scales()) })
	}
	if len(r.Env) > 0 {
		b.section("environment", "Environment", func() { b.env(r) })
	}
	var head struct{ Started, Took string }
	if st := r.Started(); !st.IsZero() {
		head.Started = st.UTC().Format("2006-01-02 15:04:05 UTC")
		if !r.LastWrite.IsZero() && r.LastWrite.After(st) {
			head.Took = fmtDuration(r.LastWrite.Sub(st))
		}
	}
	b.render("meta", head)
	if b.err != nil {
		return b.err
	}
	meta := b.body
	return WritePage(w, Page{Title: "mentat-spec report: " + r.Name, Meta: meta, Sections: b.sections})
}

// htmlBuilder collects the sections of a page; the first error of a
// template stops the rendering.
type htmlBuilder struct {
	sections []Section
	body     template.HTML // of the section being built
	err      error
}

func (b *htmlBuilder) section(id, title string, fill func()) {
	b.body = ""
	fill()
	b.sections = append(b.sections, Section{ID: id, Title: title, Body: b.body})
	b.body = ""
}

// render appends the template name of the report's sections.
func (b *htmlBuilder) render(name string, data any) {
	h, err := Render(htmlSections, name, data)
	b.add(h, err)
}

func (b *htmlBuilder) add(h template.HTML, err error) {
	if b.err == nil && err != nil {
		b.err = err
	}
	b.body += h
}

func (b *htmlBuilder) table(head []string, right []bool, rows [][]string) {
	b.add(HTMLTable(Table{Head: head, Right: right, Rows: rows}))
}

func (b *htmlBuilder) charts(cs []chart.Chart) {
	svgs := make([]template.HTML, len(cs))
	for i, c := range cs {
		svgs[i] = c.SVG()
	}
	b.render("charts", svgs)
}

func (b *htmlBuilder) overview(r *results.Run, timings []results.Row, loads []results.LoadRow, rank map[string]int) {
	var scenarios []string
	for _, t := range timings {
		if !slices.Contains(scenarios, t.Scenario) {
			scenarios = append(scenarios, t.Scenario)
		}
	}
	type scaleLine struct{ Name, Line string }
	v := struct {
		Backends, Scales, Scenarios, Dataset string
		ScaleLines                           []scaleLine
	}{Backends: orNone(r.Backends()), Scales: orNone(results.ByRank(rank)), Scenarios: orNone(scenarios), Dataset: r.EnvValue("dataset")}
	nd := scaleDatoms(timings, loads)
	for _, s := range results.ByRank(rank) {
		v.ScaleLines = append(v.ScaleLines, scaleLine{s, datasetLine(r, s, nd[s])})
	}
	b.render("overview", v)
	if rows := headlineRows(headlines(r, timings, loads, rank)); len(rows) > 0 {
		b.table(headlineHead, headlineRight, rows)
	}
}

func (b *htmlBuilder) checks(lines []results.CheckLine, whys map[results.CheckLine]CheckWhy) {
	var c results.CheckCounts
	for _, l := range lines {
		c.Add(l.Status)
	}
	if len(lines) == 0 {
		b.render("nochecks", nil)
		return
	}
	verdict, class := "no check failed", "pass"
	switch {
	case c.Fail > 0:
		verdict, class = "the run FAILED", "fail"
	case c.Threshold > 0:
		verdict, class = "a threshold was CROSSED", "fail"
	}
	// Failures first, then the rest in file order.
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(x, y results.CheckLine) int {
		return cmp.Compare(statusOrder(x.Status), statusOrder(y.Status))
	})
	// A crossed threshold carries its reasons beside its detail.
	type line struct {
		results.CheckLine
		Why *CheckWhy
	}
	rows := make([]line, len(sorted))
	for i, l := range sorted {
		rows[i].CheckLine = l
		if w, ok := whys[l]; ok {
			rows[i].Why = &w
		}
	}
	b.render("checks", struct {
		Class, Counts, Verdict, NoEvidence string
		Lines                              []line
	}{class, c.String(), verdict, NoEvidenceMoved, rows})
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func statusOrder(s string) int {
	switch s {
	case results.Fail, results.Threshold:
		return 0
	case results.Skip:
		return 1
	}
	return 2
}

func (b *htmlBuilder) loadTable(loads []results.LoadRow, rank map[string]int) {
	loads = slices.Clone(loads)
	slices.SortStableFunc(loads, func(x, y results.LoadRow) int {
		return cmp.Or(cmp.Compare(x.Backend, y.Backend), cmp.Compare(rank[x.Scale], rank[y.Scale]))
	})
	var rows [][]string
	for _, l := range loads {
		size, note := "", ""
		if l.SizeBytes != nil {
			size = results.HumanBytes(*l.SizeBytes)
		}
		if l.Ceiling {
			note = "ceiling (load cap hit; the rate reached)"
		}
		rows = append(rows, []string{l.Backend, l.Scale, results.Thousands(l.NDatoms), FormatSecs(l.WallS, 1), results.Thousands(int64(math.Round(l.DatomsPerS))),
			optSecs(l.PostLoadS), optSecs(l.AnalyzeS), optSecs(l.VacuumS), size, strconv.Itoa(l.Jobs), note})
	}
	b.table([]string{"backend", "scale", "datoms", "wall s", "datoms/s", "post-load s", "ANALYZE s", "VACUUM s", "store size", "jobs", "note"},
		[]bool{false, false, true, true, true, true, true, true, true, true, false}, rows)
}

func (b *htmlBuilder) timingTable(timings []results.Row, rank map[string]int) {
	rows := slices.Clone(timings)
	order := map[string]int{}
	for _, t := range timings {
		if _, ok := order[t.Scenario]; !ok {
			order[t.Scenario] = len(order)
		}
	}
	slices.SortStableFunc(rows, func(x, y results.Row) int {
		return cmp.Or(cmp.Compare(order[x.Scenario], order[y.Scenario]), cmp.Compare(x.Backend, y.Backend),
			cmp.Compare(rank[x.Scale], rank[y.Scale]), cmp.Compare(x.Clients, y.Clients))
	})
	var cells [][]string
	for _, r := range rows {
		cells = append(cells, []string{r.Scenario, r.Backend, r.Scale, strconv.Itoa(r.Clients), r.Op, strconv.FormatInt(r.Count, 10),
			FormatMs(r.P50Ms), FormatMs(r.P95Ms), FormatMs(r.P99Ms), FormatMs(r.MaxMs), FormatRate(r.Throughput), strconv.FormatInt(r.Errors, 10), strconv.Itoa(r.Reps)})
	}
	b.table([]string{"scenario", "backend", "scale", "clients", "op", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "ops/s", "errors", "reps"},
		[]bool{false, false, false, true, false, true, true, true, true, true, true, true, true}, cells)
}

func (b *htmlBuilder) settings(set []results.BackendSetting, scales []string) {
	var rows [][]string
	for _, s := range set {
		rows = append(rows, []string{s.Backend, s.Key, s.Value(scales)})
	}
	b.render("settings", nil)
	b.table([]string{"backend", "key", "value"}, nil, rows)
}

func (b *htmlBuilder) env(r *results.Run) {
	var rows [][]string
	for _, kv := range r.Env {
		if !strings.HasPrefix(kv.Key, "backend.") {
			rows = append(rows, []string{kv.Key, kv.Value})
		}
	}
	b.render("env", nil)
	b.table([]string{"key", "value"}, nil, rows)
	if len(r.Plans) > 0 || len(r.Logs) > 0 {
		b.render("files", struct{ Plans, Logs []fileLink }{links(results.PlansDir, r.Plans), links(results.LogsDir, r.Logs)})
	}
}

// fileLink is a relative link to a file of the results directory, which
// report.html sits in.
type fileLink struct {
	Name string
	Href template.URL
}

func links(sub string, names []string) []fileLink {
	out := make([]fileLink, len(names))
	for i, n := range names {
		out[i] = fileLink{n, template.URL((&url.URL{Path: sub + "/" + filepath.ToSlash(n)}).EscapedPath())}
	}
	return out
}

// noiseTable lists the machine's load during each point: its reps' rows
// folded (a point's rep 0 row when it has no rep rows).
func (b *htmlBuilder) noiseTable(rows []results.NoiseRow, rank map[string]int) {
	type point struct {
		scenario, backend, scale string
		n                        int
	}
	var order []point
	perRep := map[point]bool{}
	for _, r := range rows {
		p := point{r.Scenario, r.Backend, r.Scale, r.Point}
		if !slices.Contains(order, p) {
			order = append(order, p)
		}
		if r.Rep > 0 {
			perRep[p] = true
		}
	}
	scenarios := firstSeen(order, func(p point) string { return p.scenario })
	slices.SortStableFunc(order, func(x, y point) int {
		return cmp.Or(cmp.Compare(slices.Index(scenarios, x.scenario), slices.Index(scenarios, y.scenario)), cmp.Compare(x.backend, y.backend),
			cmp.Compare(rank[x.scale], rank[y.scale]), cmp.Compare(x.n, y.n))
	})
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	var cells [][]string
	for _, p := range order {
		n := results.SummarizeNoise(rows, func(r results.NoiseRow) bool {
			return r.Scenario == p.scenario && r.Backend == p.backend && r.Scale == p.scale && r.Point == p.n && (r.Rep > 0) == perRep[p]
		})
		cells = append(cells, []string{p.scenario, p.backend, p.scale, strconv.Itoa(p.n), strconv.Itoa(n.Rows), FormatSecs(n.Seconds, 1),
			strconv.FormatFloat(n.Load1, 'f', 2, 64), strconv.FormatFloat(n.LoadPerCPU, 'f', 2, 64), pct(n.OwnPct), pct(n.ServerPct), pct(n.OtherPct), pct(n.MaxOtherPct), pct(n.StealPct)})
	}
	b.render("noise", nil)
	b.table([]string{"scenario", "backend", "scale", "point", "rows", "s", "load1", "load/CPU", "own %", "server %", "other %", "max other %", "steal %"},
		[]bool{false, false, false, true, true, true, true, true, true, true, true, true, true}, cells)
}
