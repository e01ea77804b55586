package report

import (
	"os"
	"path/filepath"
	"testing"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/mentat-spec/mentat-spec/engine/browsertest"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// artifactDir is where the browser test keeps the report it opened, its
// screenshot and its PDF print: results/test-artifacts/ at the
// repository's root (ignored by git), or MENTAT_SPEC_ARTIFACTS.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MENTAT_SPEC_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "results", "test-artifacts")
	}
	dir = filepath.Join(dir, "report-browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

type chartInfo struct {
	Title  string  `json:"title"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Marks  int     `json:"marks"`
}

// pageFacts are what the browser test reads off a laid-out page.
type pageFacts struct {
	MainWidth float64 `json:"mainWidth"`
	// Colors maps each legend entry's first word (a backend) to the
	// colors its swatches were drawn in, chart by chart.
	Colors        map[string][]string `json:"colors"`
	Whiskers      int                 `json:"whiskers"`
	Spectra       int                 `json:"spectra"`
	SpectrumLines int                 `json:"spectrumLines"`
	MachineRows   int                 `json:"machineRows"`
	Links         []string            `json:"links"`
}

// TestHTMLInBrowser opens report.html of two runs in headless Chromium
// and checks what a reader sees: every chart laid out the page's width
// with marks drawn, the expected titles, one color per backend on every
// chart, no console error, no request leaving the file; and, of a real
// run with reps and HDR logs, the rep spread, the latency distributions,
// the machine's load and links to plans/ and logs/ that open. It keeps
// each page, a screenshot and a PDF print as test artifacts.
func TestHTMLInBrowser(t *testing.T) {
	exe := browsertest.Exe(t)
	out := artifactDir(t)
	for _, tc := range []struct {
		name, fixture, title, prefix string
		charts                       []string
		real                         bool
	}{
		{"run1", runFixture, "mentat-spec report: run1", "", expectedCharts, false},
		{"full-xs", fullXSFixture, "mentat-spec report: full-xs", "full-xs-", expectedFullCharts, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := fixtureRun(t, tc.fixture, fixtureEnd)
			if err := WriteAll(run); err != nil {
				t.Fatal(err)
			}
			facts, charts, title := openInBrowser(t, exe, run, out, tc.prefix)
			if title != tc.title {
				t.Errorf("page title %q", title)
			}
			if len(charts) < len(tc.charts) {
				t.Errorf("%d charts rendered, want at least %d", len(charts), len(tc.charts))
			}
			seen := map[string]bool{}
			for _, c := range charts {
				seen[c.Title] = true
				if c.Width < 0.9*facts.MainWidth || c.Height < 100 || c.Marks == 0 {
					t.Errorf("chart %q rendered %gx%g px with %d marks (the page's content is %g px wide)", c.Title, c.Width, c.Height, c.Marks, facts.MainWidth)
				}
			}
			for _, want := range tc.charts {
				if !seen[want] {
					t.Errorf("no chart %q rendered", want)
				}
			}
			// The run's backends: a chart's other legend entries (a fit
			// and its measured points) are not backends.
			timings, err := results.ReadTimings(run)
			if err != nil {
				t.Fatal(err)
			}
			backends := map[string]bool{}
			for _, r := range timings {
				backends[r.Backend] = true
			}
			for be := range facts.Colors {
				if !backends[be] {
					delete(facts.Colors, be)
				}
			}
			for be, colors := range facts.Colors {
				for _, c := range colors {
					if c != colors[0] {
						t.Errorf("%s is drawn in %s on one chart and %s on another", be, colors[0], c)
						break
					}
				}
				for other, oc := range facts.Colors {
					if other != be && oc[0] == colors[0] {
						t.Errorf("%s and %s share the color %s", be, other, oc[0])
					}
				}
			}
			if !tc.real {
				return
			}
			if len(facts.Colors) != 2 {
				t.Errorf("legend colors of %d backends, want sqlite and duckdb: %v", len(facts.Colors), facts.Colors)
			}
			if facts.Whiskers == 0 {
				t.Error("no rep spread drawn")
			}
			if facts.Spectra != 4 || facts.SpectrumLines != 8 {
				t.Errorf("%d latency distributions of %d lines, want one per scenario and client count (4), a line per backend of each (8)", facts.Spectra, facts.SpectrumLines)
			}
			if facts.MachineRows != 8 {
				t.Errorf("%d rows of machine load, want one per point (8)", facts.MachineRows)
			}
			if len(facts.Links) != 2 {
				t.Errorf("links %q, want the plan and the log", facts.Links)
			}
			for _, l := range facts.Links {
				if _, err := os.Stat(filepath.Join(run, filepath.FromSlash(l))); err != nil {
					t.Errorf("link %s: %v", l, err)
				}
			}
		})
	}
}

// openInBrowser opens report.html of the results directory run in
// Chromium, keeps the page, its screenshot and its print in out (file
// names after prefix) and returns what the page shows.
func openInBrowser(t *testing.T, exe, run, out, prefix string) (pageFacts, []chartInfo, string) {
	t.Helper()
	html, err := os.ReadFile(filepath.Join(run, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	// The page is opened where it was written, so that its relative
	// links resolve; a copy is kept as an artifact.
	pagePath := filepath.Join(run, ReportHTMLFile)
	if err := os.WriteFile(filepath.Join(out, prefix+ReportHTMLFile), html, 0o644); err != nil {
		t.Fatal(err)
	}

	tab := browsertest.Open(t, exe, pagePath)
	title, err := chromedp.Run(tab.Ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[[]chartInfo](`[...document.querySelectorAll("svg.chart")].map(s => {
		const r = s.getBoundingClientRect();
		return {title: (s.querySelector("title") || {}).textContent || "", width: r.width, height: r.height,
			marks: s.querySelectorAll("polyline, circle, rect.bar").length};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	facts, err := chromedp.Run(tab.Ctx, chromedp.Evaluate[pageFacts](`(() => {
		const colors = {};
		for (const s of document.querySelectorAll("svg.chart")) {
			const here = {};
			for (const l of s.querySelectorAll("text.legend")) {
				const sw = l.previousElementSibling, cs = getComputedStyle(sw);
				const be = l.textContent.split(" ")[0];
				here[be] = sw.tagName === "rect" ? cs.fill : cs.stroke;
			}
			for (const be in here) (colors[be] = colors[be] || []).push(here[be]);
		}
		const main = document.querySelector("main"), ms = getComputedStyle(main);
		return {
			mainWidth: main.clientWidth - parseFloat(ms.paddingLeft) - parseFloat(ms.paddingRight),
			colors,
			whiskers: document.querySelectorAll("svg.chart line.whisker").length,
			spectra: document.querySelectorAll("#distribution svg.chart").length,
			spectrumLines: document.querySelectorAll("#distribution svg.chart polyline").length,
			machineRows: document.querySelectorAll("#machine tbody tr").length,
			links: [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href")).filter(h => !h.startsWith("#")),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(tab.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	printed, err := chromedp.Call(tab.Ctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{})
	if err != nil {
		t.Fatalf("printing: %v", err)
	}
	for name, b := range map[string][]byte{"screenshot.png": shot, "report.pdf": printed.Data} {
		if len(b) == 0 {
			t.Errorf("%s is empty", name)
			continue
		}
		if err := os.WriteFile(filepath.Join(out, prefix+name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("artifacts in %s", out)
	tab.Check(t)
	return facts, charts, title
}
