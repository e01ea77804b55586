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
// image, font or frame from elsewhere.
func TestHTMLSelfContained(t *testing.T) {
	dir := fixtureRun(t, runFixture, fixtureEnd)
	if err := WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if refs := externalRefs(page); len(refs) > 0 {
		t.Errorf("report.html refers outside itself: %q", refs)
	}
	for _, title := range expectedCharts {
		if !strings.Contains(page, "<title>"+title+"</title>") {
			t.Errorf("report.html has no chart %q", title)
		}
	}
	for _, want := range []string{`<section id="checks">`, "12 PASS, 0 FAIL, 1 SKIP: no check failed.", "setting.enable_seqscan", "Example CPU @ 3.0GHz", "@media print"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("report.html has a script")
	}
	if n := countCharts(page); n < len(expectedCharts) {
		t.Errorf("%d charts, want at least %d", n, len(expectedCharts))
	}
}

// expectedCharts are chart titles the report of the fixture run must
// draw: one of each kind.
var expectedCharts = []string{
	"concurrency_sweep at xs: latency against clients",
	"concurrency_sweep at s: throughput against clients",
	"Median latency per scenario at s",
	"point_lookup across scales",
	"Bulk load rate per backend",
	"cold_warm at xs: cold against warm",
	"sustained: latency over time",
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
