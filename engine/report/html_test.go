package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The report is one self-contained file: no script, no style sheet, no
// image, font or frame from elsewhere; its only links are to the run's
// own plans and logs.
func TestHTMLSelfContained(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		charts        []string
		has           []string
	}{
		{"run1", runFixture, expectedCharts, []string{`<section id="checks">`, "12 PASS, 0 FAIL, 1 SKIP: no check failed.", "setting.enable_seqscan", "Example CPU @ 3.0GHz", "@media print", "Every point ran one rep",
			`<a href="plans/xs-sqlite-point_lookup-q_point.txt">`, `<a href="logs/as_of-sqlite-s.log">`, "<b>Logs</b> (logs/)"}},
		{"full-xs", fullXSFixture, expectedFullCharts, []string{`<section id="distribution">`, `<section id="machine">`,
			// point_lookup on duckdb: three reps beside other processes' 78.2% of the CPU.
			`<tr><td>point_lookup</td><td>duckdb</td><td>xs</td><td class="num">1</td><td class="num">3</td><td class="num">4.2</td>`,
			`<td class="num">78.2</td><td class="num">86.6</td>`,
			`<line class="whisker s1"`, `<a href="plans/xs-sqlite-point_lookup-q1.txt">`, `<a href="logs/load-xs-sqlite.log">`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixtureRun(t, tc.fixture, fixtureEnd)
			if err := WriteAll(dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			// Links to the run's plans and logs are navigation, not part of
			// the page: each names a file that exists beside report.html.
			var outside []string
			for _, ref := range externalRefs(page) {
				if !runLink.MatchString(ref) || !strings.Contains(page, `<a href="`+ref+`"`) {
					outside = append(outside, ref)
					continue
				}
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ref))); err != nil {
					t.Errorf("report.html links to %s: %v", ref, err)
				}
			}
			if len(outside) > 0 {
				t.Errorf("report.html refers outside itself: %q", outside)
			}
			for _, title := range tc.charts {
				if !strings.Contains(page, "<title>"+title+"</title>") {
					t.Errorf("report.html has no chart %q", title)
				}
			}
			for _, want := range tc.has {
				if !strings.Contains(page, want) {
					t.Errorf("report.html lacks %q", want)
				}
			}
			if strings.Contains(page, "<script") {
				t.Error("report.html has a script")
			}
			if tc.name == "full-xs" && strings.Contains(page, "Every point ran one rep") {
				t.Error("a run of 3 reps said to have one")
			}
			if strings.Contains(page, "Error logs") {
				t.Error("report.html calls every log an error log")
			}
			if n := countCharts(page); n < len(tc.charts) {
				t.Errorf("%d charts, want at least %d", n, len(tc.charts))
			}
		})
	}
}

// expectedCharts are chart titles the report of the fixture run must
// draw: one of each kind.
var expectedCharts = []string{
	"concurrency_sweep at xs: latency against clients",
	"concurrency_sweep at s: throughput against clients",
	"p50 and p99 per scenario at s",
	"point_lookup across scales",
	"Bulk load rate per backend",
	"cold_warm at xs: cold against warm",
	"sustained: latency over time",
}

// runLink is a relative link into the results directory's plans/ or logs/.
var runLink = regexp.MustCompile(`^(?:plans|logs)/[^/]+$`)

// expectedFullCharts are chart titles of the report of the real run
// (fullXSFixture).
var expectedFullCharts = []string{
	"concurrency_sweep at xs: latency against clients",
	"concurrency_sweep at xs: throughput against clients",
	"p50 and p99 per scenario at xs",
	"point_lookup at xs, 1 client, read: latency distribution",
	"concurrency_sweep at xs, 8 clients, read: latency distribution",
	"Bulk load rate per backend",
}

func countCharts(page string) int { return strings.Count(page, `<svg class="chart"`) }

var refAttr = regexp.MustCompile(`(?i)\b(?:src|href|action|poster|srcset|data)\s*=\s*["']?([^"' >]+)|url\(\s*['"]?([^'")]+)|@import\s+['"]?([^'";]+)`)

// externalRefs returns every reference in page that is not to a fragment
// of the page itself.
func externalRefs(page string) []string {
	var out []string
	for _, m := range refAttr.FindAllStringSubmatch(page, -1) {
		ref := m[1] + m[2] + m[3]
		if !strings.HasPrefix(ref, "#") {
			out = append(out, ref)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		out = append(out, "an http(s) address")
	}
	return out
}

func TestExternalRefs(t *testing.T) {
	for page, n := range map[string]int{
		`<a href="#checks">`:                         0,
		`<script src="https://x/chart.js">`:          2,
		`<link href="style.css" rel="stylesheet">`:   1,
		`<style>body{background:url(a.png)}</style>`: 1,
		`<img src=data:image/png;base64,xx>`:         1,
	} {
		if got := len(externalRefs(page)); got != n {
			t.Errorf("%s: %d references, want %d", page, got, n)
		}
	}
}

// results.json holds every row of every file, typed.
func TestJSON(t *testing.T) {
	r, err := results.Load(fixtureRun(t, runFixture, fixtureEnd))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := JSON(r, &b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format  string `json:"format"`
		Timings []struct {
			Scenario string  `json:"scenario"`
			NDatoms  int64   `json:"n_datoms"`
			Clients  int     `json:"clients"`
			P99Ms    float64 `json:"p99_ms"`
			Reps     int     `json:"reps"`
		} `json:"timings"`
		Raw   []map[string]any `json:"raw"`
		Loads []struct {
			VacuumS *float64 `json:"vacuum_s"`
			Ceiling bool     `json:"ceiling"`
		} `json:"loads"`
		Windows []map[string]any `json:"windows"`
		Checks  []map[string]any `json:"checks"`
		Sizes   []map[string]any `json:"sizes"`
		Env     []map[string]any `json:"env"`
		Plans   []string         `json:"plans"`
		Logs    []string         `json:"logs"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != "mentat-spec-results/1" {
		t.Errorf("format %q", got.Format)
	}
	if len(got.Timings) != len(r.Timings) || len(got.Raw) != len(r.Raw) || len(got.Loads) != len(r.Loads) || len(got.Windows) != len(r.Windows) ||
		len(got.Checks) != len(r.Checks) || len(got.Sizes) != len(r.Sizes) || len(got.Env) != len(r.Env) || len(got.Plans) != 1 || len(got.Logs) != 1 {
		t.Errorf("row counts differ from the files")
	}
	if tm := got.Timings[0]; tm.Scenario != "point_lookup" || tm.NDatoms != 101234 || tm.Clients != 1 || tm.P99Ms <= 0 || tm.Reps != 1 {
		t.Errorf("first timing %+v", tm)
	}
	var vacuumed, notVacuumed int
	for _, l := range got.Loads {
		if l.VacuumS == nil {
			notVacuumed++
		} else {
			vacuumed++
		}
	}
	if vacuumed != 2 || notVacuumed != 4 {
		t.Errorf("vacuum_s: %d set, %d null; want 2 and 4 (an empty field is null)", vacuumed, notVacuumed)
	}
}

// BenchmarkReports loads a run of 67 points (three backends, two scales)
// and renders each report.
func BenchmarkReports(b *testing.B) {
	dir := runFixture
	for _, rep := range Formats() {
		b.Run(rep.File, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				r, err := results.Load(dir)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if err := rep.Render(r, &buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes/report")
		})
	}
}
