package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mentat-spec/mentat-spec/drivers/all"
	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/history"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/spectest"
)

// quickRun runs the quickstart's point lookup on SQLite at xs, briefly,
// with avet saying whether its AVET index is built, into a fresh results
// directory.
func quickRun(t *testing.T, avet bool) string {
	t.Helper()
	dir := t.TempDir()
	ov := spectest.Overrides(t, dir, map[string]string{"quick_override.hcl": "sampling {\n  warmup = 1\n  min_s = 0.05\n  min_n = 5\n  max_s = 0.2\n  reps = 3\n}\n"})
	vars := []config.VarArg{{Name: "scenarios", Value: `["point_lookup"]`}, {Name: "scales", Value: `["xs"]`},
		{Name: "backends", Value: `["sqlite"]`}, {Name: "data_dir", Value: filepath.Join(dir, "data")}}
	if !avet {
		vars = append(vars, config.VarArg{Name: "avet", Value: "false"})
	}
	out := filepath.Join(dir, "results")
	spectest.Run(t, spectest.Plan(t, append([]string{filepath.Join(spectest.Root(), "examples", "quickstart.hcl")}, ov...), vars...), out, nil)
	return out
}

// An index dropped between runs of a history: the change point lists
// the plan that lost it first, from what the store keeps, after the
// results directories are gone; a change point none of whose evidence
// moved says so.
func TestChangePointWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quickstart nine times")
	}
	// Five runs with the index, four without.
	var dirs []string
	for i := range 9 {
		dirs = append(dirs, quickRun(t, i < 5))
	}
	// Every store imports the runs; then the directories' plans and
	// evidence files go: what follows is read from the stores alone.
	stores := map[string]*history.Store{}
	for name, loc := range history.StoreLocations(t) {
		s, err := history.Open(loc(t))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, d := range dirs {
			if _, _, err := s.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		stores[name] = s
	}
	for _, d := range dirs {
		for _, f := range []string{"plans", "evidence.csv", "latency-split.csv"} {
			if err := os.RemoveAll(filepath.Join(d, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The test is of the why, not of the detector's power: a busy
	// machine's reps of runs this short overlap now and then, so the step
	// is asked at 1%, not the default 0.1%.
	opts := changepoint.Options{MaxP: 0.01}
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			a, err := s.Analyze(opts)
			if err != nil {
				t.Fatal(err)
			}
			// A step where the index went (the sixth run) names the plan
			// first; a step elsewhere (a busy machine's p99 can make one
			// at this p) must not blame the plan, which did not change.
			atDrop, dropRun := 0, ""
			for _, c := range a.Changes() {
				t.Logf("%s at run %d: %s", c.Series.Key, c.Index, c.WhySay())
				planFirst := c.WhyKept && len(c.Why) > 0 && strings.HasPrefix(c.Why[0], "plan changed (q1)") && strings.Contains(c.Why[0], "cur_text_avet")
				switch {
				case c.Index == 5:
					atDrop++
					dropRun = c.Run.ID
					if !planFirst {
						t.Errorf("%s: why %q, want first the plan that lost cur_text_avet", c.Series.Key, c.Why)
					}
				case planFirst || strings.Contains(strings.Join(c.Why, "|"), "plan changed"):
					t.Errorf("%s at run %d: why %q blames the plan away from where it changed", c.Series.Key, c.Index, c.Why)
				}
			}
			if atDrop == 0 {
				t.Fatal("no change point where the index was dropped")
			}
			var md strings.Builder
			if err := a.Markdown(&md); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md.String(), "1. plan changed (q1)") {
				t.Errorf("the markdown lacks the why:\n%s", md.String())
			}
			v := a.Check(dropRun)
			var b strings.Builder
			if err := v.Write(&b); err != nil {
				t.Fatal(err)
			}
			if len(v.Regressions)+len(v.Improvements) > 0 && !strings.Contains(b.String(), "  why:\n    1. plan changed (q1)") {
				t.Errorf("history check lacks the why:\n%s", b.String())
			}
		})
	}
	// A copy of the store carries the evidence: its change points say the
	// same.
	dst, err := history.Open(filepath.Join(t.TempDir(), "copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := history.Copy(dst, stores["sqlite"]); err != nil {
		t.Fatal(err)
	}
	a, err := dst.Analyze(opts)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range a.Changes() {
		if c.Index != 5 {
			continue
		}
		found = true
		if why := c.WhySay(); !strings.HasPrefix(why, "1. plan changed (q1)") {
			t.Errorf("the copy's change point: why %q, want the plan first", why)
		}
	}
	if !found {
		t.Fatal("the copy has no change point where the index was dropped")
	}
}
