package evidence_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mentat-spec/mentat-spec/engine/browsertest"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// runGated runs the quickstart with extra spec files (name -> text) and
// vars, scenarios chosen by the caller, and loads the results; a crossed
// threshold is what the test wants, not a failure.
func runGated(t *testing.T, files map[string]string, vars ...config.VarArg) *results.Run {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["quick_override.hcl"]; !ok {
		files["quick_override.hcl"] = quickOverride
	}
	paths := append([]string{filepath.Join(spectest.Root(), "examples", "quickstart.hcl")}, spectest.Overrides(t, dir, files)...)
	vars = append(vars, config.VarArg{Name: "scales", Value: `["xs"]`}, config.VarArg{Name: "data_dir", Value: filepath.Join(dir, "data")})
	out := filepath.Join(dir, "results")
	spectest.Run(t, spectest.Plan(t, paths, vars...), out, nil)
	run, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// crossedWhys are the reasons of r's crossed thresholds, logged.
func crossedWhys(t *testing.T, r *results.Run) map[results.CheckLine]report.CheckWhy {
	t.Helper()
	ws := evidence.ThresholdWhy(r)
	for c, w := range ws {
		t.Logf("%s %s: why, against %s:\n  %s", c.Name, c.Detail, w.Against, strings.Join(w.Reasons, "\n  "))
	}
	return ws
}

// A threshold every point crosses: each is explained by its own split,
// its plan among the reasons, in summary.md beside its line too.
func TestThresholdWhyOwnSplit(t *testing.T) {
	run := runGated(t, map[string]string{"gate.hcl": `threshold "impossible" {
  scenario = "point_lookup"
  p99_ms   = 0.000001
}
`}, config.VarArg{Name: "scenarios", Value: `["point_lookup"]`})
	ws := crossedWhys(t, run)
	n := 0
	for _, c := range run.Checks {
		if c.Status != results.Threshold {
			continue
		}
		n++
		w, ok := ws[c]
		if !ok {
			t.Fatalf("%s: not explained", c.Name)
		}
		all := strings.Join(w.Reasons, "\n")
		if !strings.Contains(w.Against, "own split") || !strings.Contains(all, "dominates the observed") ||
			!strings.Contains(all, "plan (q1): SEARCH u USING COVERING INDEX cur_text_avet") {
			t.Errorf("%s: against %q, reasons\n%s\nwant the own split and the plan", c.Name, w.Against, all)
		}
	}
	if n == 0 {
		t.Fatal("no threshold crossed")
	}
	summary, err := os.ReadFile(filepath.Join(run.Dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "  - why, against its own split") {
		t.Errorf("summary.md lacks the why beside the THRESHOLD line:\n%s", summary)
	}
	// report.html, as a reader's browser shows it: the reasons listed in
	// the crossed line's detail cell.
	page := browsertest.Open(t, browsertest.Exe(t), filepath.Join(run.Dir, "report.html"))
	shown, err := chromedp.Run(page.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("td div.why li")].map(li => li.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) == 0 || !strings.Contains(strings.Join(shown, "\n"), "plan (q1): SEARCH u USING COVERING INDEX cur_text_avet") {
		t.Errorf("report.html shows the reasons %q, want the plan among them", shown)
	}
	page.Check(t)
}

// A sweep whose 8-client point crosses a p99 threshold on PostgreSQL:
// every call updates one row and holds its lock 100 ms, so 8 clients
// wait on each other (about 800 ms a call). The bound, 500 ms, is 5x the
// 1-client call, room for a busy machine's stall of 400 ms (a 1-client
// point of a second has its p99 at its slowest call), and 300 ms under
// the 8 clients' wait. The crossed point, against the 1-client point
// that passed, names the lock waits.
func TestThresholdWhyLockWaits(t *testing.T) {
	dsn := os.Getenv("MENTAT_SPEC_PG_DSN")
	if dsn == "" {
		t.Skip("MENTAT_SPEC_PG_DSN is unset")
	}
	db := fmt.Sprintf("mentat_whythr_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() { dropPG(t, dsn, db) })
	run := runGated(t, map[string]string{
		// Points of a second and more: the wait sampler's 200 ms then
		// takes enough samples of each for its shares to mean something.
		"quick_override.hcl": "sampling {\n  warmup  = 1\n  min_s   = 1\n  min_n   = 5\n  max_s   = 1.5\n  reps    = 1\n  probe_s = 20\n}\n",
		"pg_override.hcl":    "backend \"postgres\" {\n  database = \"" + db + "\"\n}\n",
		"hot.hcl": `query "hot_row" {
  sql = "WITH u AS (UPDATE attrs SET ident = ident WHERE a = (SELECT min(a) FROM attrs) RETURNING a) SELECT pg_sleep(0.1), a FROM u"
}

scenario "hot_row" {
  description = "one row's lock held 100 ms per call"
  clients     = [1, 8]
  read {
    query = query.hot_row
  }
}

threshold "hot" {
  scenario = "hot_row"
  p99_ms   = 500
}
`}, config.VarArg{Name: "scenarios", Value: `["hot_row"]`}, config.VarArg{Name: "backends", Value: `["postgres"]`},
		config.VarArg{Name: "pg_dsn", Value: dsn})
	ws := crossedWhys(t, run)
	var crossed []results.CheckLine
	for _, c := range run.Checks {
		if c.Status == results.Threshold {
			crossed = append(crossed, c)
		}
	}
	if len(crossed) != 1 || !strings.Contains(crossed[0].Name, "clients=8") {
		t.Fatalf("crossed %v, want the 8-client point only", crossed)
	}
	w := ws[crossed[0]]
	if !strings.HasPrefix(w.Against, "clients=1 ") {
		t.Fatalf("against %q, want the 1-client point that passed", w.Against)
	}
	all := strings.Join(w.Reasons, "\n")
	if !strings.Contains(all, "wait events") || !strings.Contains(all, "Lock:") {
		t.Errorf("reasons\n%s\nlack the lock waits", all)
	}
	if strings.Contains(all, "plan changed") {
		t.Errorf("reasons\n%s\nblame the plan, which did not change", all)
	}
}
