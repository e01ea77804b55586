package compare

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

func statsDir(name string) string { return filepath.Join("testdata", "stats", name) }

type outcome struct{ what, metric, outcome string }

func outcomes(r Verdict) []outcome {
	var out []outcome
	for _, v := range r.Verdicts {
		out = append(out, outcome{strings.Fields(v.What)[0], v.Metric, v.Outcome})
	}
	return out
}

func TestCompareStats(t *testing.T) {
	tests := []struct {
		name      string
		old, new  string
		opt       Options
		refused   bool
		regressed bool
		want      []outcome // verdicts that must be present
		notWant   []string  // outcomes that must not appear
		text      []string  // in the report
	}{
		{
			name: "significant regression found", old: "base", new: "slower", regressed: true,
			want: []outcome{{"point_lookup", KindP50, OutRegression}, {"point_lookup", KindThroughput, OutRegression}, {"pull", KindP50, OutNoChange}},
			text: []string{"p=0.008  REGRESSION", "(reps 5 -> 5)"},
		},
		{
			name: "the reverse is an improvement", old: "slower", new: "base",
			want:    []outcome{{"point_lookup", KindP50, OutImprovement}, {"point_lookup", KindThroughput, OutImprovement}},
			notWant: []string{OutRegression}, text: []string{"no regressions"},
		},
		{
			name: "a change below the threshold is not a regression", old: "base", new: "slower", opt: Options{ThresholdPct: 60},
			want: []outcome{{"point_lookup", KindP50, OutSmall}}, notWant: []string{OutRegression},
		},
		{
			name: "another run of the same code", old: "base", new: "again",
			notWant: []string{OutRegression, OutImprovement},
		},
		{
			name: "a run with itself", old: "base", new: "base",
			want: []outcome{{"point_lookup", KindP50, OutNoChange}, {"pull", KindP99, OutNoChange}},
		},
		{
			name: "reps = 1 cannot decide", old: "single_old", new: "single_new",
			want:    []outcome{{"point_lookup", KindP50, OutUndecided}, {"pull", KindThroughput, OutUndecided}},
			notWant: []string{OutRegression, OutImprovement, OutNoChange},
			text:    []string{"cannot decide 6 metrics: too few reps (OLD has 1, NEW 1 at the fewest; at alpha 0.05 the test needs at least 4 and 4)", "no regressions"},
		},
		{
			name: "5 against 1 cannot decide either", old: "base", new: "single_new",
			notWant: []string{OutRegression, OutImprovement, OutNoChange},
		},
		{
			name: "a looser alpha", old: "base", new: "slower", opt: Options{Alpha: 0.2},
			want: []outcome{{"point_lookup", KindP50, OutRegression}}, regressed: true,
		},
		{
			name: "refusal lists the differences", old: "base", new: "settings", refused: true,
			text: []string{"OLD and NEW are not comparable:", "var.avet", "true", "false", "backend.sqlite.xs.setting.synchronous", "compare refused"},
		},
		{
			name: "-force proceeds", old: "base", new: "settings", opt: Options{Force: true},
			want: []outcome{{"point_lookup", KindP50, OutNoChange}},
			text: []string{"var.avet", "compared anyway (-force)", "2 points compared"},
		},
		{
			name: "where a variable came from and machine facts do not matter", old: "base", new: "same_values",
			notWant: []string{OutRegression},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			if opt.ThresholdPct == 0 {
				opt.ThresholdPct = 10
			}
			verdict, err := Dirs(statsDir(tc.old), statsDir(tc.new), opt)
			if err != nil {
				t.Fatal(err)
			}
			text := verdict.String()
			if verdict.Refused != tc.refused || verdict.Regressed() != tc.regressed {
				t.Fatalf("refused %v regressed %v, want %v %v:\n%s", verdict.Refused, verdict.Regressed(), tc.refused, tc.regressed, text)
			}
			if tc.refused && len(verdict.Verdicts) != 0 {
				t.Errorf("a refused comparison judged %d metrics", len(verdict.Verdicts))
			}
			if !tc.refused && len(verdict.Verdicts) != 6 {
				t.Errorf("%d verdicts, want 6 (2 points x 3 metrics)", len(verdict.Verdicts))
			}
			got := outcomes(verdict)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("no %v in %v", w, got)
				}
			}
			for _, o := range got {
				if slices.Contains(tc.notWant, o.outcome) {
					t.Errorf("unexpected %v", o)
				}
			}
			for _, s := range tc.text {
				if !strings.Contains(text, s) {
					t.Errorf("report lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestCompareRefusalDifferences(t *testing.T) {
	verdict, err := Dirs(statsDir("base"), statsDir("settings"), Options{ThresholdPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	// The path option differs too, but it does not make runs different.
	want := []Difference{
		{"var.avet", "true", "false"},
		{"backend.sqlite.xs.setting.synchronous", "1", "2"},
	}
	if !slices.Equal(verdict.Differences, want) {
		t.Errorf("differences %v, want %v", verdict.Differences, want)
	}
	// Refusal comes before anything is read: the same under -method threshold.
	verdict, err = Dirs(statsDir("base"), statsDir("settings"), Options{Method: MethodThreshold, ThresholdPct: 10})
	if err != nil || !verdict.Refused || verdict.Regressed() {
		t.Errorf("threshold method: refused %v regressed %v err %v, want refused", verdict.Refused, verdict.Regressed(), err)
	}
	// Without env.txt nothing can be checked: said, not refused.
	verdict, err = Dirs(filepath.Join("testdata", "compare", "old"), filepath.Join("testdata", "compare", "old"), Options{ThresholdPct: 10})
	if err != nil || verdict.Refused || !strings.Contains(verdict.String(), "note: OLD has no env.txt") {
		t.Errorf("no env.txt: refused %v err %v:\n%s", verdict.Refused, err, verdict)
	}
}

func TestDirsInvalid(t *testing.T) {
	tests := []struct {
		name string
		old  string
		opt  Options
		want string
	}{
		{"unknown method", statsDir("base"), Options{Method: "median"}, "method"},
		{"negative threshold", statsDir("base"), Options{ThresholdPct: -1}, "threshold"},
		{"alpha of 1", statsDir("base"), Options{Alpha: 1}, "alpha"},
		{"missing directory", statsDir("nope"), Options{}, "not a results directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Dirs(tc.old, statsDir("base"), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// Reps drawn from one distribution: the false-alarm rate of the rule
// (significant at alpha AND beyond the threshold) stays at or below the
// test's size, whatever the spread between reps, and a real shift of the
// same size as the spread is found.
func TestJudgeNoiseAndPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	draw := func(n int, center, spread float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = center * math.Exp(spread*rng.NormFloat64())
		}
		return v
	}
	const trials = 2000
	for _, spread := range []float64{0.02, 0.1, 0.3} {
		var alarms, found int
		for range trials {
			v := MetricVerdict{Metric: KindP50, Old: draw(5, 1, spread), New: draw(5, 1, spread)}
			judge(&v, 0.05, 10)
			if v.Outcome == OutRegression || v.Outcome == OutImprovement {
				alarms++
			}
			w := MetricVerdict{Metric: KindP50, Old: draw(5, 1, spread), New: draw(5, math.Exp(4*spread)+0.1, spread)}
			judge(&w, 0.05, 10)
			if w.Outcome == OutRegression {
				found++
			}
		}
		// The exact 5+5 test rejects with probability 2*P(U<=2) = 0.032.
		if rate := float64(alarms) / trials; rate > 0.045 {
			t.Errorf("spread %v: %.1f%% false alarms, want at most the test's size (3.2%%)", spread, 100*rate)
		}
		if rate := float64(found) / trials; rate < 0.8 {
			t.Errorf("spread %v: a shift of 4 spreads found %.1f%% of the time", spread, 100*rate)
		}
	}
}

func TestJudgeEdges(t *testing.T) {
	tests := []struct {
		name     string
		metric   string
		old, new []float64
		want     string
	}{
		{"one rep each", KindP50, []float64{1}, []float64{5}, OutUndecided},
		{"three and three", KindP50, []float64{1, 1.1, 1.2}, []float64{5, 5.1, 5.2}, OutUndecided},
		{"four and four", KindP50, []float64{1, 1.1, 1.2, 1.3}, []float64{5, 5.1, 5.2, 5.3}, OutRegression},
		{"throughput falls", KindThroughput, []float64{100, 101, 102, 103}, []float64{50, 51, 52, 53}, OutRegression},
		{"throughput rises", KindThroughput, []float64{50, 51, 52, 53}, []float64{100, 101, 102, 103}, OutImprovement},
		{"a zero rep", KindThroughput, []float64{0, 101, 102, 103}, []float64{50, 51, 52, 53}, OutUndecided},
		// Every NEW rep is slower (p = 0.008) and the estimate is past 10%,
		// but the interval reaches down to +3%: not shown beyond it.
		{"interval reaches inside the threshold", KindP50, []float64{1, 1.01, 1.02, 1.03, 1.04}, []float64{1.05, 1.12, 1.13, 1.14, 1.3}, OutSmall},
		{"interval beyond the threshold", KindP50, []float64{1, 1.01, 1.02, 1.03, 1.04}, []float64{1.2, 1.22, 1.23, 1.24, 1.3}, OutRegression},
		{"all equal", KindP99, []float64{2, 2, 2, 2, 2}, []float64{2, 2, 2, 2, 2}, OutNoChange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := MetricVerdict{Metric: tc.metric, Old: tc.old, New: tc.new}
			judge(&v, 0.05, 10)
			if v.Outcome != tc.want {
				t.Errorf("outcome %q, want %q (p %v ratio %v)", v.Outcome, tc.want, v.P, v.Ratio)
			}
		})
	}
}

// With fingerprints, points whose definition changed are left out and
// listed, the rest are judged as usual.
func TestCompareLeavesOutChangedDefinitions(t *testing.T) {
	changed := func(k results.Key) bool { return k.Scenario != "point_lookup" }
	verdict, err := Dirs(statsDir("base"), statsDir("slower"), Options{ThresholdPct: 10,
		Comparable: changed, NotCompared: []string{"point_lookup sqlite xs: changed definition (query q1), not compared"}})
	if err != nil {
		t.Fatal(err)
	}
	if verdict.Regressed() {
		t.Errorf("the changed scenario was judged:\n%s", verdict)
	}
	for _, v := range verdict.Verdicts {
		if strings.HasPrefix(v.What, "point_lookup ") {
			t.Errorf("verdict for a point left out: %+v", v)
		}
	}
	if !strings.Contains(verdict.String(), "not compared: point_lookup sqlite xs: changed definition") {
		t.Errorf("the left-out point is not listed:\n%s", verdict)
	}
	// Without the filter the same pair is a regression.
	if verdict, err := Dirs(statsDir("base"), statsDir("slower"), Options{ThresholdPct: 10}); err != nil || !verdict.Regressed() {
		t.Errorf("without fingerprints: regressed %v err %v", verdict.Regressed(), err)
	}
}

// compare -html: one page, nothing fetched, the regression marked and
// both runs' timings side by side.
func TestCompareHTML(t *testing.T) {
	verdict, err := Dirs(statsDir("base"), statsDir("slower"), Options{ThresholdPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := HTML(verdict, &b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<!DOCTYPE html>", "regression(s).", `<td class="fail">REGRESSION</td>`, "Timings side by side", "p50 OLD", "point_lookup sqlite xs clients=1 read"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://", "<script", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page refers outside itself: %q", bad)
		}
	}
	refused, err := Dirs(statsDir("base"), statsDir("settings"), Options{ThresholdPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := HTML(refused, &b); err != nil || !strings.Contains(b.String(), "Refused") || !strings.Contains(b.String(), "var.avet") {
		t.Errorf("a refused comparison's page: %v\n%s", err, b.String())
	}
}
