package compare

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// writeRun writes a results directory of one spec on one machine whose
// run draws its own level (runSD between runs, on the log scale) and its
// reps a small spread around it: the case where reps alone understate
// how much runs differ.
func writeRun(t *testing.T, dir string, r *rand.Rand, runSD, shift float64) {
	t.Helper()
	writeRunSDs(t, dir, r, []float64{runSD, runSD, runSD, runSD, runSD, runSD}, shift)
}

// writeRunSDs is writeRun with a between-run SD per point.
func writeRunSDs(t *testing.T, dir string, r *rand.Rand, runSDs []float64, shift float64) {
	t.Helper()
	d, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteEnv([]results.KV{{Key: "spec_sha256", Value: "abc"}, {Key: "cpu_model", Value: "test"}}, nil); err != nil {
		t.Fatal(err)
	}
	for p, runSD := range runSDs {
		level := math.Exp(r.NormFloat64()*runSD) * (1 + shift)
		var reps []results.Row
		for rep := 1; rep <= 5; rep++ {
			ms := level * math.Exp(r.NormFloat64()*0.01) * float64(p+1)
			row := results.Row{Scenario: "lookup", Backend: "b", Scale: "xs", NDatoms: 10, Clients: p + 1, Op: "read", Rep: rep,
				Count: 1000, P50Ms: ms, P95Ms: ms * 1.5, P99Ms: ms * 2, MaxMs: ms * 3, Throughput: 1000 / ms}
			if err := d.AppendRaw(row); err != nil {
				t.Fatal(err)
			}
			reps = append(reps, row)
		}
		if err := d.AppendTiming(results.Median(reps)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// Runs that differ by 10% between them while their reps agree within 1%:
// the reps alone call the difference of two such runs a regression; with
// the variation calibrated from A/A runs it is no change, and a real
// +100% change is still a regression.
func TestCalibratedRunVariation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	root := t.TempDir()
	var aa []string
	for i := 0; i < 6; i++ {
		dir := filepath.Join(root, "aa", string(rune('a'+i)))
		writeRun(t, dir, r, 0.10, 0)
		aa = append(aa, dir)
	}
	rv, err := Calibrate(aa)
	if err != nil {
		t.Fatal(err)
	}
	if sd := rv.SD[KindP50]; sd < 0.06 || sd > 0.15 {
		t.Errorf("between-run SD of p50 %.3f, want about 0.10", sd)
	}
	old, same, slower := filepath.Join(root, "old"), filepath.Join(root, "same"), filepath.Join(root, "slower")
	writeRun(t, old, r, 0.10, 0)
	writeRun(t, same, r, 0.10, 0)
	writeRun(t, slower, r, 0.10, 1.0)
	regressions := func(newDir string, rv *RunVariation) int {
		v, err := Dirs(old, newDir, Options{ThresholdPct: 10, RunVariation: rv})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, mv := range v.Verdicts {
			if mv.Outcome == OutRegression && mv.Metric == KindP50 {
				n++
			}
		}
		return n
	}
	if n := regressions(same, nil); n == 0 {
		t.Errorf("without calibration no A/A regression: the test cannot show what calibration fixes")
	}
	if n := regressions(same, rv); n != 0 {
		t.Errorf("calibrated: %d p50 regressions between two A/A runs, want 0", n)
	}
	if n := regressions(slower, rv); n < 5 {
		t.Errorf("calibrated: %d of 6 points regressed by 100%%, want at least 5", n)
	}
	// The run's own words say which variation the verdict rests on.
	v, _ := Dirs(old, same, Options{ThresholdPct: 10, RunVariation: rv})
	if s := v.String(); !strings.Contains(s, "run-to-run variation: from 6 A/A runs") {
		t.Errorf("the verdict does not say its run variation:\n%s", s)
	}
	if v, _ := Dirs(old, same, Options{ThresholdPct: 10}); !strings.Contains(v.String(), "assumes none beyond the reps' spread") {
		t.Errorf("an uncalibrated verdict does not say what it assumes:\n%s", v.String())
	}
	if _, err := Calibrate(aa[:1]); err == nil {
		t.Error("one A/A run calibrated")
	}
}

// One point varies between runs by 40% while five others keep to 1%: the
// pooled variation is small, and only the point's own estimate keeps
// two A/A runs from flagging it; a +150% change of a steady point is
// still a regression.
func TestCalibratedPointVariation(t *testing.T) {
	sds := []float64{0.40, 0.01, 0.01, 0.01, 0.01, 0.01}
	root := t.TempDir()
	r := rand.New(rand.NewPCG(11, 13))
	var aa []string
	for i := 0; i < 6; i++ {
		dir := filepath.Join(root, "aa", string(rune('a'+i)))
		writeRunSDs(t, dir, r, sds, 0)
		aa = append(aa, dir)
	}
	rv, err := Calibrate(aa)
	if err != nil {
		t.Fatal(err)
	}
	wide := results.Key{Scenario: "lookup", Backend: "b", Scale: "xs", Clients: 1, Op: "read"}
	if sd, df := rv.sdFor(wide, KindP50); sd < 0.2 || df != 5 {
		t.Errorf("the wide point's between-run SD %.3f on %g df, want about 0.40 on 5 (six runs)", sd, df)
	}
	if sd, _ := rv.sdFor(wide, KindP50); sd < 0.2 {
		t.Errorf("the wide point's between-run SD %.3f, want about 0.40", sd)
	}
	if sd := rv.SD[KindP50]; sd > 0.3 {
		t.Errorf("pooled SD %.3f: the test needs it below the wide point's", sd)
	}
	// Pairs of A/A runs whose wide point differs by about 2 of its SDs.
	flagged := 0
	for i := 0; i < 10; i++ {
		a, b := filepath.Join(root, "a", string(rune('a'+i))), filepath.Join(root, "b", string(rune('a'+i)))
		writeRunSDs(t, a, r, sds, 0)
		writeRunSDs(t, b, r, sds, 0)
		v, err := Dirs(a, b, Options{ThresholdPct: 10, RunVariation: rv})
		if err != nil {
			t.Fatal(err)
		}
		for _, mv := range v.Verdicts {
			if mv.Outcome == OutRegression {
				flagged++
				t.Logf("pair %d: %s %s %.2f", i, mv.What, mv.Metric, mv.Ratio)
			}
		}
		if i == 0 && !strings.Contains(v.String(), "(up to ") {
			t.Errorf("the verdict does not name the widest point:\n%s", v.String())
		}
	}
	if flagged > 0 {
		t.Errorf("%d regressions over 10 calibrated A/A pairs, want 0", flagged)
	}
	old, slower := filepath.Join(root, "old"), filepath.Join(root, "slower")
	writeRunSDs(t, old, r, sds, 0)
	writeRunSDs(t, slower, r, sds, 1.5)
	v, err := Dirs(old, slower, Options{ThresholdPct: 10, RunVariation: rv})
	if err != nil {
		t.Fatal(err)
	}
	steady := 0
	for _, mv := range v.Verdicts {
		if mv.Outcome == OutRegression && mv.Metric == KindP50 && mv.key != wide {
			steady++
		}
	}
	if steady != 5 {
		t.Errorf("%d of 5 steady points flagged after +150%%, want 5", steady)
	}
}

// TestJudgeRunsDegreesOfFreedom: a run-level SD estimated from four
// calibration runs (3 df) is unsure; a change 2.4 standard errors out is
// a regression when the SD is known well, and within its uncertainty
// when it rests on 3 df (the normal test flagged such a pair under load).
func TestJudgeRunsDegreesOfFreedom(t *testing.T) {
	reps := func(center float64) []float64 {
		out := make([]float64, 5)
		for i := range out {
			out[i] = center * math.Exp(0.01*float64(i-2))
		}
		return out
	}
	const sd = 0.1 // between runs, in log units
	// se ≈ sqrt(2)·sd: put the new run 2.4 se above the old.
	shift := math.Exp(2.4 * math.Sqrt2 * sd)
	tests := []struct {
		name string
		sdDF float64
		want string
	}{
		{"sd known well", 1e6, OutRegression},
		{"sd from 4 runs", 3, OutNoChange},
		{"sd from 20 runs", 19, OutRegression},
	}
	for _, tt := range tests {
		v := MetricVerdict{Metric: KindP50, Old: reps(1), New: reps(shift)}
		judgeRuns(&v, 0.05, 0, sd, tt.sdDF)
		if v.Outcome != tt.want {
			t.Errorf("%s: %s (p=%.3f, [%.3f, %.3f]), want %s", tt.name, v.Outcome, v.P, v.Lo, v.Hi, tt.want)
		}
	}
}

func TestSatterthwaite(t *testing.T) {
	tests := []struct{ a, da, b, db, want float64 }{
		{1, 3, 0, 8, 3},    // the between-run part alone
		{0, 3, 1, 8, 8},    // the reps alone
		{1, 3, 1, 3, 6},    // two alike add up
		{1, 3, 1e-9, 8, 3}, // a negligible part adds nothing
		{0, 3, 0, 8, 11},   // nothing to weigh
	}
	for _, tt := range tests {
		if got := satterthwaite(tt.a, tt.da, tt.b, tt.db); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("satterthwaite(%g, %g, %g, %g) = %g, want %g", tt.a, tt.da, tt.b, tt.db, got, tt.want)
		}
	}
}
