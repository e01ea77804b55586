// Package browsertest opens the HTML files the engine writes (report.html,
// trends.html) in headless Chromium for their tests: one browser setup,
// and one watch for console errors and requests that leave the file.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// names are the Chromium-based browsers looked for on PATH, in order.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Exe returns a Chromium-based browser on PATH. Outside CI a missing one
// skips the test; in CI (CI set) it fails: CI installs Debian's chromium
// (scripts/browser.sh).
func Exe(t testing.TB) string {
	t.Helper()
	for _, name := range names {
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

// Page is a file opened in headless Chromium; Ctx runs chromedp actions
// on its tab.
type Page struct {
	Ctx  context.Context
	path string

	mu       sync.Mutex
	problems []string
	requests []string
}

// Open starts the browser exe, 1280x900, and opens the file at path
// (absolute), the listener attached before the page loads so that it sees
// every event. The browser closes when the test ends.
func Open(t testing.TB, exe, path string) *Page {
	t.Helper()
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
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)

	// Open the tab first, so that the listener sees every event of the page.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	p := &Page{Ctx: bctx, path: path}
	if err := chromedp.Listen(bctx, p.observe); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	return p
}

// observe keeps the console's errors and warnings, exceptions, the log's
// errors and every request the page makes.
func (p *Page) observe(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			p.problems = append(p.problems, fmt.Sprintf("console.%s", ev.Type))
		}
	case *runtime.EventExceptionThrown:
		p.problems = append(p.problems, "exception: "+ev.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			p.problems = append(p.problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

// Check fails the test for each problem the browser reported and each
// request other than the page itself: a report is one self-contained file.
func (p *Page) Check(t testing.TB) {
	t.Helper()
	for _, problem := range p.Problems() {
		t.Errorf("browser reported %s", problem)
	}
}

// Problems lists what the browser reported so far and the requests that
// left the page's own file.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]string(nil), p.problems...)
	for _, u := range p.requests {
		if u != "file://"+p.path {
			out = append(out, "a request for "+u)
		}
	}
	return out
}
