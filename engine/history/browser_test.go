package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
)

// browser returns a Chromium-based browser; outside CI a missing one
// skips the test, in CI (CI set) it fails, as report.html's test does.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH in CI: scripts/browser.sh installs it (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (install it with: apt-get install chromium); CI never skips this test")
	return ""
}

type drawn struct {
	Title   string  `json:"title"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Points  int     `json:"points"`
	Changes int     `json:"changes"`
}

// TestTrendsInBrowser opens trends.html in headless Chromium: every
// series drawn with its runs, the change marked in its chart and named in
// the table, no console error, no request leaving the file.
func TestTrendsInBrowser(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		exe := browser(t)
		dirs, err := historytest.History(t.TempDir(), 40, 5, 0.1, 25, 1.3)
		if err != nil {
			t.Fatal(err)
		}
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

		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
			chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 900))
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
		defer acancel()
		bctx, bcancel := chromedp.NewContext(actx)
		defer bcancel()
		if err := chromedp.Do(bctx); err != nil {
			t.Fatalf("starting chromium: %v", err)
		}
		var mu sync.Mutex
		var problems, requests []string
		err = chromedp.Listen(bctx, func(ev any) {
			mu.Lock()
			defer mu.Unlock()
			switch ev := ev.(type) {
			case *runtime.EventConsoleAPICalled:
				if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
					problems = append(problems, fmt.Sprintf("console.%s", ev.Type))
				}
			case *runtime.EventExceptionThrown:
				problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
			case *cdplog.EventEntryAdded:
				if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
					problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
				}
			case *network.EventRequestWillBeSent:
				requests = append(requests, ev.Request.URL)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
			t.Fatalf("opening trends.html: %v", err)
		}
		title, err := chromedp.Run(bctx, chromedp.Title())
		if err != nil {
			t.Fatal(err)
		}
		charts, err := chromedp.Run(bctx, chromedp.Evaluate[[]drawn](`[...document.querySelectorAll("svg.chart")].map(s => {
			const r = s.getBoundingClientRect();
			const line = s.querySelector("polyline.median");
			return {title: (s.querySelector("title") || {}).textContent || "", width: r.width, height: r.height,
				points: line ? line.points.numberOfItems : 0, changes: s.querySelectorAll("line.change").length};
		})`))
		if err != nil {
			t.Fatal(err)
		}
		tableRows, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("table.changes tbody tr").length`))
		if err != nil {
			t.Fatal(err)
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
		mu.Lock()
		defer mu.Unlock()
		for _, p := range problems {
			t.Errorf("browser reported %s", p)
		}
		for _, u := range requests {
			if u != "file://"+page {
				t.Errorf("the page requested %s", u)
			}
		}
	})
}
