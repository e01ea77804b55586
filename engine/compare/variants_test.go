package compare

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// variantRun writes a run of two backends, x and y, whose y is twice as
// slow. The scenario "reads" ran paired (x's and y's reps alternate in
// raw.csv, one noise row per rep); "writes" ran each backend's reps back
// to back (x's five, then y's, one noise row per backend), as the paired
// order runs a scenario that writes. Other processes took otherX and
// otherY percent of the CPU while each backend ran. When split is set,
// the same rows go to two runs instead, one per backend, both named x:
// the two-run compare the variants' verdict must agree with.
func variantRun(t *testing.T, dir string, otherX, otherY float64, split bool) (string, string) {
	t.Helper()
	dirs := map[string]*results.Dir{}
	paths := map[string]string{}
	open := func(name, path string) {
		d, err := results.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		env := []results.KV{{Key: "spec_sha256", Value: "abc"}, {Key: "cpu_model", Value: "test"}}
		if split {
			env = append(env, results.KV{Key: "backend.x.driver", Value: "sqlite"})
		} else {
			env = append(env, results.KV{Key: "backend.x.driver", Value: "sqlite"}, results.KV{Key: "backend.y.driver", Value: "sqlite"},
				results.KV{Key: "backend.x.xs.setting.cache_size", Value: "-2000"}, results.KV{Key: "backend.y.xs.setting.cache_size", Value: "-1024"})
		}
		if err := d.WriteEnv(env, nil); err != nil {
			t.Fatal(err)
		}
		dirs[name], paths[name] = d, path
	}
	if split {
		open("x", filepath.Join(dir, "x"))
		open("y", filepath.Join(dir, "y"))
	} else {
		open("x", dir)
		dirs["y"] = dirs["x"]
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	emit := func(backend string, rec results.Record) {
		if err := dirs[backend].Emit(rec); err != nil {
			t.Fatal(err)
		}
	}
	rows := map[string][]results.Row{}
	rep := func(scenario, backend string, n int) {
		ms := 1.0 + 0.01*float64(n)
		if backend == "y" {
			ms *= 2
		}
		name := backend
		if split {
			name = "x"
		}
		r := results.Row{Scenario: scenario, Backend: name, Scale: "xs", NDatoms: 10, Clients: 1, Op: "read", Rep: n,
			Count: 1000, P50Ms: ms, P95Ms: ms * 1.5, P99Ms: ms * 2, MaxMs: ms * 3, Throughput: 1000 / ms}
		emit(backend, results.Raw(r))
		rows[scenario+" "+backend] = append(rows[scenario+" "+backend], r)
	}
	noise := func(scenario, backend string, n int, other float64) {
		name := backend
		if split {
			name = "x"
		}
		emit(backend, results.NoiseRow{Scenario: scenario, Backend: name, Scale: "xs", Point: 1, Rep: n, Start: at, Seconds: 1,
			Load1: 1, CPUs: 2, BusyPct: other + 10, OwnPct: 10, OtherPct: other})
		at = at.Add(time.Second)
	}
	other := map[string]float64{"x": otherX, "y": otherY}
	for n := 1; n <= 5; n++ {
		for _, b := range []string{"x", "y"} {
			rep("reads", b, n)
			noise("reads", b, n, other[b])
		}
	}
	for _, b := range []string{"x", "y"} {
		for n := 1; n <= 5; n++ {
			rep("writes", b, n)
		}
		noise("writes", b, 0, other[b])
	}
	for k, rs := range rows {
		emit(strings.Fields(k)[1], results.Timing(results.Median(rs)))
	}
	for name, d := range dirs {
		if name == "y" && !split {
			continue
		}
		if _, err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return paths["x"], paths["y"]
}

// compare RUN -variants follows the user's flags: the machine's noise
// that differs between the variants (other processes 74% against 47%)
// makes the metrics that moved undecided, as between two runs, unless
// -force; and it says -force only when given.
func TestVariantsNoiseFollowsForce(t *testing.T) {
	run := t.TempDir()
	variantRun(t, run, 47, 74, false)
	x, y := variantRun(t, t.TempDir(), 47, 74, true)
	for _, force := range []bool{false, true} {
		opt := Options{ThresholdPct: 10, NoiseBoundPct: 10, Force: force}
		v, err := Variants(run, "x", "y", opt)
		if err != nil {
			t.Fatal(err)
		}
		two, err := Dirs(x, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		out := v.String()
		if v.Refused {
			t.Fatalf("force %v: the variants' settings refused the comparison:\n%s", force, out)
		}
		if !strings.Contains(out, "the variants differ in") || !strings.Contains(out, "cache_size") {
			t.Errorf("force %v: the variants' difference is not listed:\n%s", force, out)
		}
		if got, want := outcomesOf(v), outcomesOf(two); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("force %v: the variants' outcomes\n%s\ndiffer from two runs'\n%s\n%s", force, strings.Join(got, "\n"), strings.Join(want, "\n"), out)
		}
		if v.Regressed() != two.Regressed() || v.Undecided() != two.Undecided() {
			t.Errorf("force %v: regressed %v undecided %d, two runs %v %d", force, v.Regressed(), v.Undecided(), two.Regressed(), two.Undecided())
		}
		says := strings.Contains(out, "(-force)")
		switch {
		case !force && (says || v.Regressed() || v.Undecided() == 0):
			t.Errorf("without -force: regressed %v, %d undecided, says -force %v:\n%s", v.Regressed(), v.Undecided(), says, out)
		case force && (!says || !v.Regressed()):
			t.Errorf("with -force: regressed %v, says -force %v:\n%s", v.Regressed(), says, out)
		}
		if !force && !strings.Contains(out, "other processes took 74% of the CPU during NEW, 47% during OLD") {
			t.Errorf("the reason is not given:\n%s", out)
		}
	}
}

func outcomesOf(v Verdict) []string {
	var out []string
	for _, m := range v.Verdicts {
		out = append(out, strings.Fields(m.What)[0]+" "+m.Metric+" "+m.Outcome)
	}
	return out
}

// The verdict says paired only for the points whose reps alternated in
// the run: a scenario whose reps ran back to back on each backend is two
// samples, and the verdict says so.
func TestVariantsSayHowRepsRan(t *testing.T) {
	run := t.TempDir()
	variantRun(t, run, 5, 5, false)
	v, err := Variants(run, "x", "y", Options{ThresholdPct: 10, NoiseBoundPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := v.String()
	for _, w := range []string{
		"reads x vs y xs clients=1 read (reps 5 -> 5; paired: reps alternated)",
		"writes x vs y xs clients=1 read (reps 5 -> 5; unpaired (two samples): the 5 reps of x ran before the 5 of y)",
		"run-to-run variation: none on the 1 point whose reps alternated; not estimated on the 1 whose reps did not (writes x vs y xs clients=1 read)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("the verdict lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "alternate point by point") || strings.Contains(out, "on every point") {
		t.Errorf("the verdict claims every point paired:\n%s", out)
	}
	var page strings.Builder
	if err := HTML(v, &page); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"reads x vs y xs clients=1 read (paired: reps alternated)", "writes x vs y xs clients=1 read (unpaired (two samples): the 5 reps of x ran before the 5 of y)"} {
		if !strings.Contains(page.String(), w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	for _, m := range v.Verdicts {
		if m.Order == nil || m.Order.Alternated != strings.HasPrefix(m.What, "reads") {
			t.Errorf("%s %s: order %+v", m.What, m.Metric, m.Order)
		}
	}
}

func TestOrderOf(t *testing.T) {
	for _, tt := range []struct {
		seq        string
		alternated bool
		how        string
	}{
		{"a b a b a b", true, "reps alternated"},
		{"b a b a", true, "reps alternated"},
		{"a a a b b b", false, "the 3 reps of a ran before the 3 of b"},
		{"b b a a", false, "the 2 reps of b ran before the 2 of a"},
		{"a b b a", false, "reps in the order a b b a"},
		{"a b a", false, "2 reps of a, 1 of b"},
		{"a a", false, "measured on one variant only"},
	} {
		got := orderOf(strings.Fields(tt.seq), "a", "b")
		if got.Alternated != tt.alternated || got.How != tt.how {
			t.Errorf("%s: %+v, want %v %q", tt.seq, got, tt.alternated, tt.how)
		}
	}
}

// The run-to-run line says paired only as far as the points were.
func TestPairingText(t *testing.T) {
	alt, seq := &PointOrder{Alternated: true, How: "reps alternated"}, &PointOrder{How: "the 5 reps of x ran before the 5 of y"}
	v := func(what string, o *PointOrder) MetricVerdict {
		return MetricVerdict{What: what, Metric: KindP50, Order: o}
	}
	for _, tt := range []struct {
		vs   []MetricVerdict
		want string
	}{
		{[]MetricVerdict{v("a", alt), v("b", alt)}, "their reps alternated on every point (2)"},
		{[]MetricVerdict{v("a", seq)}, "on none of their 1 point did the reps alternate"},
		{[]MetricVerdict{v("a", alt), v("b", seq), v("c", seq)}, "none on the 1 point whose reps alternated; not estimated on the 2 whose reps did not (b; c)"},
	} {
		if got := pairingText(tt.vs); !strings.Contains(got, tt.want) {
			t.Errorf("%q lacks %q", got, tt.want)
		}
	}
}

// A loaded run without the file a comparison needs is refused as reading
// that file refused it: raw.csv for variants, timings.csv for two runs.
func TestLoadedRunMissingFile(t *testing.T) {
	only := func(names ...string) *results.Run {
		r := &results.Run{Dir: "run", Files: map[string]bool{}}
		for _, n := range names {
			r.Files[n] = true
		}
		return r
	}
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"variants without raw.csv", func() error {
			_, err := VariantsOf(only(results.TimingsFile), "a", "b", Options{})
			return err
		}, "compare variants: results: open run/raw.csv: no such file or directory"},
		{"variants without timings.csv", func() error {
			_, err := VariantsOf(only(results.RawFile), "a", "b", Options{})
			return err
		}, "compare variants: results: open run/timings.csv: no such file or directory"},
		{"two runs, NEW without timings.csv", func() error {
			_, err := Runs(only(results.TimingsFile), only(), Options{})
			return err
		}, "compare NEW: results: open run/timings.csv: no such file or directory"},
	} {
		if err := tc.do(); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
