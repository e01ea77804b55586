package history

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mentat-spec/mentat-spec/engine/browsertest"
	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

type drawn struct {
	Title   string  `json:"title"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Points  int     `json:"points"`
	Changes int     `json:"changes"`
}

// TestTrendsInBrowser opens trends.html in headless Chromium: every
// series drawn with its runs, the change marked in its chart and named in
// the table with its why, no console error, no request leaving the file.
func TestTrendsInBrowser(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		exe := browsertest.Exe(t)
		dirs, err := historytest.History(t.TempDir(), 40, 5, 0.1, 25, 1.3)
		if err != nil {
			t.Fatal(err)
		}
		withEvidence(t, dirs) // the same in every run: its why says nothing moved
		s := k.open(t)
		addAll(t, s, dirs)
		a := analyze(t, s)
		page := filepath.Join(t.TempDir(), "trends.html")
		f, err := os.Create(page)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.HTML(f); err != nil {
			t.Fatal(err)
		}
		f.Close()

		browser := browsertest.Open(t, exe, page)
		title, err := chromedp.Run(browser.Ctx, chromedp.Title())
		if err != nil {
			t.Fatal(err)
		}
		charts, err := chromedp.Run(browser.Ctx, chromedp.Evaluate[[]drawn](`[...document.querySelectorAll("svg.chart")].map(s => {
			const r = s.getBoundingClientRect();
			const line = s.querySelector("polyline.median");
			return {title: (s.querySelector("title") || {}).textContent || "", width: r.width, height: r.height,
				points: line ? line.points.numberOfItems : 0, changes: s.querySelectorAll("line.change").length};
		})`))
		if err != nil {
			t.Fatal(err)
		}
		tableRows, err := chromedp.Run(browser.Ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.changes tbody tr").length`))
		if err != nil {
			t.Fatal(err)
		}
		why, err := chromedp.Run(browser.Ctx, chromedp.Evaluate[string](`(document.querySelector("table.changes tbody tr td.why") || {}).textContent || ""`))
		if err != nil {
			t.Fatal(err)
		}
		if why != "no evidence moved" {
			t.Errorf("the change's why reads %q, want: no evidence moved", why)
		}
		if title != "mentat-spec history: 40 runs" {
			t.Errorf("title %q", title)
		}
		if len(charts) != len(a.Series) {
			t.Errorf("%d charts drawn, want %d", len(charts), len(a.Series))
		}
		marked := 0
		for _, c := range charts {
			if c.Width < 300 || c.Height < 60 || c.Points != 40 {
				t.Errorf("chart %q drawn %gx%g px with %d runs", c.Title, c.Width, c.Height, c.Points)
			}
			if c.Changes > 0 {
				marked++
				if c.Title != "point_lookup store xs clients=1 read p50_ms" {
					t.Errorf("a change marked in %q", c.Title)
				}
			}
		}
		if marked != 1 || tableRows != 1 {
			t.Errorf("%d charts with a change, %d change rows; want 1 and 1", marked, tableRows)
		}
		browser.Check(t)
	})
}
