package report

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
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser returns the path of a Chromium-based browser. Outside CI a
// missing browser skips the test; in CI (CI set, as .ci/run sets it) it
// fails: CI installs Debian's chromium (scripts/browser.sh).
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

// TestHTMLInBrowser opens report.html of a run in headless Chromium and
// checks what a reader sees: every chart laid out with marks drawn, the
// expected titles, no console error, no request leaving the file. It
// keeps the page, a screenshot and a PDF print as test artifacts.
func TestHTMLInBrowser(t *testing.T) {
	exe := browser(t)
	run := fixtureRun(t, runFixture, fixtureEnd)
	out := artifactDir(t)
	if err := WriteAll(run); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(run, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	pagePath := filepath.Join(out, ReportHTMLFile)
	if err := os.WriteFile(pagePath, html, 0o644); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	// Open the tab first, so that the listener sees every event of the page.
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
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+pagePath), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening the report: %v", err)
	}
	title, err := chromedp.Run(bctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(bctx, chromedp.Evaluate[[]chartInfo](`[...document.querySelectorAll("svg.chart")].map(s => {
		const r = s.getBoundingClientRect();
		return {title: (s.querySelector("title") || {}).textContent || "", width: r.width, height: r.height,
			marks: s.querySelectorAll("polyline, circle, rect.bar").length};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	printed, err := chromedp.Call(bctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{})
	if err != nil {
		t.Fatalf("printing: %v", err)
	}
	pdf := printed.Data
	for name, b := range map[string][]byte{"screenshot.png": shot, "report.pdf": pdf} {
		if len(b) == 0 {
			t.Errorf("%s is empty", name)
			continue
		}
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("artifacts in %s", out)

	if title != "mentat-spec report: run1" {
		t.Errorf("page title %q", title)
	}
	if len(charts) < len(expectedCharts) {
		t.Errorf("%d charts rendered, want at least %d", len(charts), len(expectedCharts))
	}
	seen := map[string]bool{}
	for _, c := range charts {
		seen[c.Title] = true
		if c.Width < 200 || c.Height < 100 || c.Marks == 0 {
			t.Errorf("chart %q rendered %gx%g px with %d marks", c.Title, c.Width, c.Height, c.Marks)
		}
	}
	for _, want := range expectedCharts {
		if !seen[want] {
			t.Errorf("no chart %q rendered", want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser reported %s", p)
	}
	for _, u := range requests {
		if u != "file://"+pagePath {
			t.Errorf("the page requested %s", u)
		}
	}
}
