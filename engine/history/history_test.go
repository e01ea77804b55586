package history

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/history/historytest"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

func addAll(t testing.TB, s *Store, dirs []string) []Run {
	t.Helper()
	var out []Run
	for _, d := range dirs {
		r, added, err := s.Add(d)
		if err != nil {
			t.Fatal(err)
		}
		if !added {
			t.Fatalf("%s: not added", d)
		}
		out = append(out, r)
	}
	return out
}

func analyze(t testing.TB, s *Store) *Analysis {
	t.Helper()
	a, err := s.Analyze(changepoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSyntheticShift is the done-when: 60 runs of 5 reps at a CV
// of 10%, point_lookup's p50 +15% from run 40.
func TestSyntheticShift(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 60, 5, 0.10, 40, 1.15)
		if err != nil {
			t.Fatal(err)
		}
		s := k.open(t)
		runs := addAll(t, s, dirs)
		a := analyze(t, s)
		if got := len(a.Series); got != 9 {
			t.Errorf("%d series, want 9 (3 points × 3 metrics)", got)
		}
		cs := a.Changes()
		if len(cs) != 1 {
			for _, c := range cs {
				t.Logf("change %s at %s %+.1f%% p=%g", c.Series.Key, c.Run.Name, c.Pct(), c.PValue)
			}
			t.Fatalf("%d change points, want 1", len(cs))
		}
		c := cs[0]
		if c.Series.Key.Scenario != "point_lookup" || c.Series.Key.Metric != "p50_ms" {
			t.Errorf("change in %s, want point_lookup p50_ms", c.Series.Key)
		}
		at := slices.IndexFunc(runs, func(r Run) bool { return r.ID == c.Run.ID })
		if at < 39 || at > 41 {
			t.Errorf("change at run %d, want 40±1", at)
		}
		if !(c.Low <= 1.15 && 1.15 <= c.High) {
			t.Errorf("interval [%s, %s] misses +15%%", signedPct(c.Low), signedPct(c.High))
		}
		if !c.Regression {
			t.Error("a slower p50 is not called a regression")
		}
		if want := shortRev(historytest.Revision(at-1)) + ".." + shortRev(historytest.Revision(at)); c.Revisions() != want {
			t.Errorf("revisions %q, want %q", c.Revisions(), want)
		}
		v := a.Check(runs[40].ID)
		if len(v.Regressions) != 1 {
			t.Fatalf("check of run 40: %d regressions, want 1", len(v.Regressions))
		}
		var b bytes.Buffer
		if err := v.Write(&b); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"REGRESSION point_lookup store xs clients=1 read p50_ms: +1", shortRev(historytest.Revision(39)) + ".."} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("check output lacks %q:\n%s", want, b.String())
			}
		}
		t.Logf("%s", b.String())
		for i, r := range runs {
			if i != at && len(a.Check(r.ID).Regressions) > 0 {
				t.Errorf("check of run %d reports a regression", i)
			}
		}
	})
}

// TestSyntheticAA: the same history without the shift has no change
// point, and checking any run finds nothing.
func TestSyntheticAA(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dirs, err := historytest.History(t.TempDir(), 60, 5, 0.10, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := k.open(t)
		runs := addAll(t, s, dirs)
		a := analyze(t, s)
		for _, c := range a.Changes() {
			t.Errorf("change point in an A/A history: %s at %s %+.1f%% p=%g", c.Series.Key, c.Run.Name, c.Pct(), c.PValue)
		}
		for i, r := range runs {
			if v := a.Check(r.ID); len(v.Regressions)+len(v.Improvements) > 0 {
				t.Errorf("check of run %d: %d regressions, %d improvements", i, len(v.Regressions), len(v.Improvements))
			}
		}
	})
}

func TestAddIsIdempotent(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		dirs, err := historytest.History(root, 3, 5, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		count := func() (n int) {
			if err := s.db.QueryRow(`SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM points) + (SELECT count(*) FROM env) + (SELECT count(*) FROM checks)`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		// The same run again, and a copy of it elsewhere: nothing changes.
		cp := filepath.Join(t.TempDir(), "copy")
		if err := os.CopyFS(cp, os.DirFS(dirs[1])); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{dirs[0], cp} {
			r, added, err := s.Add(d)
			if err != nil {
				t.Fatal(err)
			}
			if added {
				t.Errorf("%s added twice", d)
			}
			if r.ID == "" || r.Points != 3 {
				t.Errorf("existing run %+v", r)
			}
		}
		if after := count(); after != before {
			t.Errorf("rows %d -> %d after adding again", before, after)
		}
		runs, err := s.Runs()
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 3 || runs[0].Checks.Pass != 3 || runs[0].Revision != historytest.Revision(0) {
			t.Fatalf("runs %+v", runs)
		}
		if runs[0].Machine != "cpu_model=Synthetic CPU @ 3.0GHz, cpus=2, mem_total=8000000 kB, os_arch=linux/amd64" {
			t.Errorf("machine %q", runs[0].Machine)
		}
		// Remove deletes the run and what hangs on it; Find resolves names,
		// id prefixes and directories.
		r, err := s.Find(dirs[2])
		if err != nil {
			t.Fatal(err)
		}
		if r2, err := s.Find(r.ID[:6]); err != nil || r2.ID != r.ID {
			t.Errorf("find by prefix: %v %v", r2.ID, err)
		}
		if err := s.Remove(r.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(r.ID); err == nil {
			t.Error("removing twice did not fail")
		}
		if _, err := s.Find(r.Name); err == nil {
			t.Error("a removed run is still found")
		}
		var orphans int
		if err := s.db.QueryRow(s.q(`SELECT count(*) FROM points WHERE run_id = ?`), r.ID).Scan(&orphans); err != nil || orphans != 0 {
			t.Errorf("%d points of the removed run left (%v)", orphans, err)
		}
	})
}

func TestReopenAndSchemaVersion(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		loc := k.loc(t)
		s, err := Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = Open(loc) // reopening an existing store migrates nothing
		if err != nil {
			t.Fatal(err)
		}
		var v string
		if err := s.db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(SchemaVersion) {
			t.Errorf("schema_version %q (%v), want %d", v, err, SchemaVersion)
		}
		if _, err := s.db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := Open(loc); err == nil || !strings.Contains(err.Error(), "newer mentat-spec (schema 99") {
			t.Errorf("a newer store opened: %v", err)
		}
	})
}

// TestOtherMachine: runs from another machine's env.txt form their own
// series, even twice as slow, and raise no change point.
func TestOtherMachine(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		dirs, err := historytest.History(filepath.Join(root, "a"), 20, 5, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		for i := range 5 {
			d := filepath.Join(root, "b", fmt.Sprint(i))
			if err := historytest.Write(d, historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(100 + i),
				Env: historytest.OtherMachine, Reps: 5, CV: 0.1, Seed: uint64(500 + i), Shift: 2, ShiftScenario: "point_lookup"}); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		a := analyze(t, s)
		if len(a.Series) != 18 {
			t.Errorf("%d series, want 18 (9 per machine)", len(a.Series))
		}
		for _, sr := range a.Series {
			if n := len(sr.Runs); n != 20 && n != 5 {
				t.Errorf("series %s on %s has %d runs", sr.Key, sr.Machine, n)
			}
		}
		for _, c := range a.Changes() {
			t.Errorf("change point across machines: %s at %s", c.Series.Key, c.Run.Name)
		}
	})
}

// TestDeliberateChange: a variable that drops indexes slows point
// lookups 3×; the change is found at the first run with it, in the same
// series, with the variable and the backend's definition named.
func TestDeliberateChange(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		dirs, err := historytest.History(root, 20, 5, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		for i := range 3 {
			d := filepath.Join(root, fmt.Sprintf("noavet-%d", i))
			if err := historytest.Write(d, historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(19),
				Vars: map[string]string{"avet": "false (from -var)"}, Reps: 5, CV: 0.1, Seed: uint64(900 + i), Shift: 3, ShiftScenario: "point_lookup",
				OtherCPU: 40}); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		a := analyze(t, s)
		if len(a.Series) != 9 {
			t.Errorf("%d series, want 9: a variable does not split a series", len(a.Series))
		}
		cs := a.Changes()
		if len(cs) != 1 {
			t.Fatalf("%d change points, want 1", len(cs))
		}
		c := cs[0]
		if c.Run.Name != "noavet-0" || c.Series.Key.Scenario != "point_lookup" || !c.Regression {
			t.Errorf("change %s at %s regression=%v", c.Series.Key, c.Run.Name, c.Regression)
		}
		if c.Revisions() != "same revision "+shortRev(historytest.Revision(19)) {
			t.Errorf("revisions %q", c.Revisions())
		}
		var what []string
		for _, d := range c.Changed {
			what = append(what, d.What+": "+d.Before+" -> "+d.After)
		}
		want := []string{"var.avet: true -> false", "backend store definition (setup, after_load, settings): backend-avet -> backend-no-a"}
		if !slices.Equal(what, want) {
			t.Errorf("changed %q, want %q", what, want)
		}
		// The runs before recorded no noise: none is claimed.
		if c.Noise != "" {
			t.Errorf("noise %q from runs without noise_other_cpu_pct", c.Noise)
		}
		var md bytes.Buffer
		if err := a.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"`var.avet` true → false", "regression**", "| point_lookup store xs clients=1 read p50_ms | `noavet-0` |"} {
			if !strings.Contains(md.String(), w) {
				t.Errorf("markdown lacks %q:\n%s", w, md.String())
			}
		}
	})
}

// TestDeliberateChangeBesideAHighRun: the last run before the change
// happened to draw high, which pulls the step one run early; it is
// placed at the run where the variable changed.
func TestDeliberateChangeBesideAHighRun(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		dirs, err := historytest.History(root, 20, 5, 0.1, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		if err := historytest.Write(dirs[19], historytest.Run{Started: start.Add(-time.Hour), Revision: historytest.Revision(19),
			Reps: 5, CV: 0.1, Seed: 20, Shift: 2.2, ShiftScenario: "point_lookup"}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			d := filepath.Join(root, fmt.Sprintf("noavet-%d", i))
			if err := historytest.Write(d, historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(19),
				Vars: map[string]string{"avet": "false (from -var)"}, Reps: 5, CV: 0.1, Seed: uint64(900 + i), Shift: 3, ShiftScenario: "point_lookup"}); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		var at []string
		for _, c := range analyze(t, s).Changes() {
			at = append(at, c.Series.Key.Metric+" at "+c.Run.Name)
			if c.Run.Name != "noavet-0" {
				t.Errorf("%s: change at %s, want noavet-0", c.Series.Key, c.Run.Name)
			}
		}
		if len(at) == 0 {
			t.Fatal("no change point")
		}
		t.Log(at)
	})
}

// TestSeedFormat: a directory of the seed suite (timings.csv without
// raw.csv, checks.txt, env.txt with mentat_git) imports; each point has
// its median as its one rep.
func TestSeedFormat(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dir := filepath.Join(t.TempDir(), "scale-20250101T000000Z")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			results.TimingsFile: results.TimingsHeader + "\n" +
				"q1,pg,s,1000000,1,read,300,1.5,2.0,3.0,9.0,650.0,0,3\n" +
				"q1,pg,s,1000000,1,ceiling,1,25000,25000,25000,25000,0.04,0,1\n",
			results.ChecksFile: "PASS q1 pg s point_lookup: 10 of 10\nTOTAL 1 PASS, 0 FAIL, 0 SKIP\n",
			results.EnvFile:    "# invocation 2025-01-01T00:00:00Z\nmentat_git: 815164a1+\ncpu_model: Intel Xeon Platinum 8375C\ncpus: 128\n",
		}
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := k.open(t)
		r, added, err := s.Add(dir)
		if err != nil || !added {
			t.Fatalf("%v %v", added, err)
		}
		if r.Revision != "815164a1+" || r.Points != 2 || r.Checks.Pass != 1 || !r.Started.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("run %+v", r)
		}
		a := analyze(t, s)
		if len(a.Series) != 3 {
			t.Fatalf("%d series, want 3 (the ceiling is not a measurement)", len(a.Series))
		}
		if v := a.Series[0].Values(0); len(v) != 1 || v[0] != 1.5 {
			t.Errorf("p50 reps %v, want [1.5]", v)
		}
	})
}

func TestRepsRoundTrip(t *testing.T) {
	reps := []Rep{{Rep: 1, Count: 10, Errors: 2, P50Ms: 1.5, P95Ms: 2, P99Ms: 3, MaxMs: 4, Throughput: 100, N: 10, P50RelCI: 0.05, P99RelCI: math.Inf(1), StoppedBy: "precision"},
		{Rep: 2}}
	got, err := decodeReps(encodeReps(reps))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, reps) {
		t.Errorf("got %+v", got)
	}
	if _, err := decodeReps(encodeReps(reps)[:20]); err == nil {
		t.Error("a truncated blob decoded")
	}
}

func TestHTMLReport(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		dirs, err := historytest.History(root, 30, 5, 0.1, 20, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		a := analyze(t, s)
		var b bytes.Buffer
		if err := a.HTML(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		for _, want := range []string{"<title>mentat-spec history: 30 runs</title>", `<svg class="chart"`, `class="change regression"`,
			"% regression</td>", "run-020", shortRev(historytest.Revision(19)) + ".." + shortRev(historytest.Revision(20))} {
			if !strings.Contains(page, want) {
				t.Errorf("trends.html lacks %q", want)
			}
		}
		for _, bad := range []string{"<script", "http://", "https://"} {
			if strings.Contains(page, bad) {
				t.Errorf("trends.html has %q: not self-contained", bad)
			}
		}
	})
}

// TestPrecisionKept: precision.csv's fields are kept with their rep, and
// a rerun's rows supersede the first ones.
func TestPrecisionKept(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		dir := filepath.Join(t.TempDir(), "run")
		if err := historytest.Write(dir, historytest.Run{Started: time.Now(), Revision: historytest.Revision(0), Reps: 2, CV: 0.1, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		prec := results.PrecisionHeader + "\n" +
			"scan,store,xs,1,read,1,400,3.1,0.04,9.0,0.2,precision,12.5\n" +
			"scan,store,xs,1,read,2,300,3.2,,9.1,,max,\n"
		if err := os.WriteFile(filepath.Join(dir, results.PrecisionFile), []byte(prec), 0o644); err != nil {
			t.Fatal(err)
		}
		// A rerun of scan's rep 2 appended to raw.csv supersedes the first.
		f, err := os.OpenFile(filepath.Join(dir, results.RawFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(f, "scan,store,xs,99124,1,read,2,333,7.000000,8.000000,9.000000,10.000000,99.000,0")
		f.Close()
		s := k.open(t)
		if _, _, err := s.Add(dir); err != nil {
			t.Fatal(err)
		}
		pts, err := s.points(s.db)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(pts, func(p storedPoint) bool { return p.Scenario == "scan" })
		reps := pts[i].Reps
		if len(reps) != 2 {
			t.Fatalf("scan reps %+v", reps)
		}
		if r := reps[0]; r.N != 400 || r.P50RelCI != 0.04 || r.StoppedBy != "precision" {
			t.Errorf("rep 1 %+v", r)
		}
		if r := reps[1]; r.Count != 333 || r.P50Ms != 7 || r.StoppedBy != "max" || !math.IsInf(r.P50RelCI, 1) {
			t.Errorf("rep 2 %+v (the rerun's row)", r)
		}
	})
}

// TestNoiseAtChange: the other processes' CPU share and the steal on
// both sides of a change are said with it.
func TestNoiseAtChange(t *testing.T) {
	forStores(t, func(t *testing.T, k storeKind) {
		root := t.TempDir()
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var dirs []string
		for i := range 20 {
			r := historytest.Run{Started: start.Add(time.Duration(i) * time.Hour), Revision: historytest.Revision(i), Reps: 5, CV: 0.05,
				Seed: uint64(i + 1), OtherCPU: 2, Steal: 1}
			if i >= 12 {
				r.Shift, r.ShiftScenario, r.OtherCPU, r.Steal = 1.5, "scan", 40, 7
			}
			d := filepath.Join(root, fmt.Sprint(i))
			if err := historytest.Write(d, r); err != nil {
				t.Fatal(err)
			}
			dirs = append(dirs, d)
		}
		s := k.open(t)
		addAll(t, s, dirs)
		cs := analyze(t, s).Changes()
		if len(cs) != 1 {
			t.Fatalf("%d changes, want 1", len(cs))
		}
		if want := "other processes took 2% of the CPU before, 40% after; steal 1% before, 7% after (mean over the runs)"; cs[0].Noise != want {
			t.Errorf("noise %q, want %q", cs[0].Noise, want)
		}
	})
}
