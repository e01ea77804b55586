package compare_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/kinds/capacity"
	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// A run is read once: a results directory loaded, then deleted, still
// renders summary.md, report.html, a compare of two runs and of two
// variants of one run, the same bytes as from the directory. Every kind
// of file is in the runs (HDR logs, noise, capacity and its probes, open
// loop, windows, memory, fingerprints), so a section that re-read its file
// by path would fail or lose its part.
func TestLoadedRunRendersWithoutItsFiles(t *testing.T) {
	oldDir, newDir := fullRun(t, 1000), fullRun(t, 600)

	type rendered struct{ summary, html, cmp, cmpHTML, variants string }
	render := func(oldRun, newRun *results.Run) rendered {
		t.Helper()
		var out rendered
		var b bytes.Buffer
		if err := report.SummaryMD(oldRun, &b); err != nil {
			t.Fatal(err)
		}
		out.summary = b.String()
		b.Reset()
		if err := report.HTML(oldRun, &b); err != nil {
			t.Fatal(err)
		}
		out.html = b.String()
		c, err := compare.Unchanged(oldRun, newRun)
		if err != nil {
			t.Fatal(err)
		}
		v, err := compare.Runs(oldRun, newRun, compare.Options{ThresholdPct: 10, Force: true, Comparable: c.Comparable, LoadComparable: c.LoadComparable})
		if err != nil {
			t.Fatal(err)
		}
		out.cmp = v.String()
		b.Reset()
		if err := compare.HTML(v, &b); err != nil {
			t.Fatal(err)
		}
		out.cmpHTML = b.String()
		vv, err := compare.VariantsOf(oldRun, "sqlite", "duckdb", compare.Options{ThresholdPct: 10})
		if err != nil {
			t.Fatal(err)
		}
		out.variants = vv.String()
		return out
	}
	load := func(dir string) *results.Run {
		t.Helper()
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := render(load(oldDir), load(newDir))
	// The fixture holds what each part reads: otherwise the comparison
	// below proves nothing.
	for _, want := range []struct{ in, what string }{
		{before.summary, "## Open loop"}, {before.summary, "## Sustained windows"}, {before.summary, "## Engine memory by phase"},
		{before.summary, "capacity_search"}, {before.html, "latency distribution"}, {before.html, "capacity_search"},
		{before.cmp, "REGRESSION capacity_search"}, {before.cmpHTML, "Timings side by side"}, {before.cmp, "noise"},
		{before.variants, "sqlite vs duckdb"},
	} {
		if !strings.Contains(want.in, want.what) {
			t.Fatalf("no %q in the rendering from the directory:\n%s", want.what, want.in)
		}
	}

	oldRun, newRun := load(oldDir), load(newDir)
	for _, d := range []string{oldDir, newDir} {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	after := render(oldRun, newRun)
	for _, c := range []struct{ name, before, after string }{
		{"summary.md", before.summary, after.summary}, {"report.html", before.html, after.html},
		{"compare", before.cmp, after.cmp}, {"compare html", before.cmpHTML, after.cmpHTML}, {"variants", before.variants, after.variants},
	} {
		if c.before != c.after {
			t.Errorf("%s differs once the files are gone:\n--- from the directory\n%s\n--- from the loaded run\n%s", c.name, c.before, c.after)
		}
	}
}

// fullRun is the report's real full-xs run with a row of every other
// file added, a capacity search found at found ops/s among them.
func fullRun(t *testing.T, found float64) string {
	t.Helper()
	src := filepath.Join("..", "report", "testdata", "full-xs")
	dst := filepath.Join(t.TempDir(), "run")
	end := time.Date(2026, 11, 30, 10, 4, 25, 0, time.UTC)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(to, end, end)
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := results.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	row := func(backend string, clients int) results.Row {
		return results.Row{Scenario: "stream", Backend: backend, Scale: "xs", Clients: clients, Op: "read", Count: 100,
			P50Ms: 1, P95Ms: 2, P99Ms: 3, MaxMs: 4, Throughput: 50}
	}
	for _, rec := range []results.Record{
		capacity.CapacityRow{Scenario: "capacity_search", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Capacity: found,
			Low: found * 0.95, High: found * 1.05, Unit: capacity.UnitRate, LimitedBy: "latency", ServiceLevel: "p99<=50ms", Probes: 3, Seconds: 9},
		capacity.CapacityProbeRow{Scenario: "capacity_search", Backend: "sqlite", Scale: "xs", Clients: 8, Op: "read", Probe: 1, Phase: "search",
			Pass: 1, Rate: found, Seconds: 3, Count: 300, Achieved: found, AchievedPct: 100, PctlMs: 2, PctlLowMs: 1, PctlHighMs: 3, P50Ms: 1, P99Ms: 2, Held: true},
		results.OpenLoopRow{Row: row("sqlite", 4), Rate: 50, Late: 1, Dropped: 0},
		results.WindowRow{Row: row("sqlite", 2), Window: 0, StartS: 0, EndS: 2},
		results.WindowRow{Row: row("sqlite", 2), Window: 1, StartS: 2, EndS: 4},
		results.MemoryRow{Scale: "xs", Backend: "sqlite", Phase: results.PhaseMeasure, Start: end, Seconds: 5, PeakRSS: 1 << 30, EndRSS: 1 << 29, PeakGo: 1 << 20},
	} {
		if err := d.Emit(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
	fp := &results.Fingerprints{Version: results.FingerprintsVersion, Cells: map[string]results.CellFingerprint{
		"xs/sqlite": {Scale: "xs", Backend: "sqlite", Dataset: "d1", Queries: map[string]string{"q1": "a"},
			Scenarios: map[string]results.ScenarioFingerprint{"point_lookup": {Definition: "s1", Queries: []string{"q1"}}}},
	}}
	if err := results.WriteFingerprints(dst, fp); err != nil {
		t.Fatal(err)
	}
	return dst
}
