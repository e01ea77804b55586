package evidence

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// splitRun is a run of two points: PostgreSQL without track_planning
// (planning unknown, in the rest) and SQLite (no server time at all).
func splitRun(t *testing.T) *results.Run {
	nan := math.NaN()
	return writeRun(t,
		results.SplitRow{Scenario: "lookup", Backend: "postgres", Scale: "l", Point: 1, Clients: 1, Calls: 100, ObservedMs: 0.5, ServerExecMs: 0.04, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.36, RestIncludes: "planning", EngineCPUMs: 0.02},
		results.SplitRow{Scenario: "lookup", Backend: "sqlite", Scale: "l", Point: 1, Clients: 1, Calls: 100, ObservedMs: 0.2, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.001, RestMs: 0.199, RestIncludes: "server_exec+planning", EngineCPUMs: 0.19},
	)
}

func TestSummaryWhereTheTimeGoes(t *testing.T) {
	var b bytes.Buffer
	if err := report.SummaryMD(splitRun(t), &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	i := strings.Index(md, "## Where the time goes")
	if i < 0 {
		t.Fatalf("no section in\n%s", md)
	}
	sec := md[i:]
	for _, want := range []string{
		"| postgres | l | lookup | p1 | 1 | 0.500 | 0.040 | unknown | 0.100 | 0.360 (with planning) | 0.020 |",
		"| sqlite | l | lookup | p1 | 1 | 0.200 | unknown | unknown | 0.001 | 0.199 (with server_exec, planning) | 0.190 |",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("no row %q in\n%s", want, sec)
		}
	}
}

func TestSummaryWithoutSplitsHasNoSection(t *testing.T) {
	var b bytes.Buffer
	if err := report.SummaryMD(writeRun(t), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Where the time goes") {
		t.Fatalf("a run without splits got the section:\n%s", b.String())
	}
}

func TestSplitBars(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name  string
		s     results.SplitRow
		parts []string // the classes of the segments drawn, in order
	}{
		{"all known", results.SplitRow{ObservedMs: 1, ServerExecMs: 0.4, PlanningMs: 0.1, RoundTripMs: 0.2, RestMs: 0.3}, []string{"s0", "s1", "s2", "s7"}},
		{"planning unknown", results.SplitRow{ObservedMs: 0.5, ServerExecMs: 0.04, PlanningMs: nan, RoundTripMs: 0.1, RestMs: 0.36}, []string{"s0", "s2", "s7"}},
		// A floor above the observed time: the rest is negative, not drawn.
		{"floor above observed", results.SplitRow{ObservedMs: 0.1, ServerExecMs: nan, PlanningMs: nan, RoundTripMs: 0.15, RestMs: -0.05}, []string{"s2"}},
		{"open loop", results.SplitRow{ObservedMs: nan, RoundTripMs: 0.1}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := string(splitBars([]results.SplitRow{tc.s}))
			var got []string
			for _, f := range strings.Split(h, `<rect class="bar part `)[1:] {
				got = append(got, f[:strings.IndexByte(f, '"')])
			}
			if strings.Join(got, ",") != strings.Join(tc.parts, ",") {
				t.Fatalf("segments %v, want %v in %s", got, tc.parts, h)
			}
			if strings.Contains(h, "http") {
				t.Fatalf("the bars refer outside the page: %s", h)
			}
			if tc.parts == nil && h != "" {
				t.Fatalf("drew %s", h)
			}
		})
	}
}

// TestSplitInBrowser opens report.html of a run with splits in headless
// Chromium and checks the bars are laid out: one per point, their
// segments as wide as the bar, the page's width.
func TestSplitInBrowser(t *testing.T) {
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH in CI: scripts/browser.sh installs it")
		}
		t.Skip("no chromium on PATH")
	}
	run := splitRun(t)
	page := filepath.Join(run.Dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.HTML(run, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(1280, 900))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening the report: %v", err)
	}
	type bar struct {
		Parts    int     `json:"parts"`
		Width    float64 `json:"width"`
		MaxWidth float64 `json:"maxWidth"`
	}
	type facts struct {
		SVGWidth  float64 `json:"svgWidth"`
		MainWidth float64 `json:"mainWidth"`
		Bars      []bar   `json:"bars"`
		Heading   string  `json:"heading"`
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[facts](`(() => {
		const s = document.querySelector("#time-split svg.split");
		if (!s) return {bars: []};
		const main = document.querySelector("main"), ms = getComputedStyle(main);
		const rows = {};
		for (const r of s.querySelectorAll("rect.part")) {
			const y = r.getAttribute("y"), b = r.getBoundingClientRect();
			rows[y] = rows[y] || {parts: 0, width: 0, maxWidth: 0};
			rows[y].parts++;
			rows[y].width += b.width;
		}
		const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
		for (const y in rows) rows[y].maxWidth = 600 * scale;
		return {svgWidth: s.getBoundingClientRect().width,
			mainWidth: main.clientWidth - parseFloat(ms.paddingLeft) - parseFloat(ms.paddingRight),
			bars: Object.values(rows), heading: (document.querySelector("#time-split h2") || {}).textContent || ""};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Bars) != 2 {
		t.Fatalf("%d bars drawn, want one per point (2): %+v", len(got.Bars), got)
	}
	if got.SVGWidth < 0.9*got.MainWidth {
		t.Errorf("bars %g px wide on a page %g px wide", got.SVGWidth, got.MainWidth)
	}
	for _, b := range got.Bars {
		// Each bar is the whole observed time: its segments fill it.
		if b.Parts < 2 || math.Abs(b.Width-b.MaxWidth) > 2 {
			t.Errorf("bar of %d segments %g px wide, want the full %g px", b.Parts, b.Width, b.MaxWidth)
		}
	}
	if !strings.Contains(got.Heading, "Where the time goes") {
		t.Errorf("section heading %q", got.Heading)
	}
}
