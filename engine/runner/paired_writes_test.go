package runner_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// In a paired run whose scenarios include one that writes, the reads'
// reps alternate between the backends while the writing scenario runs
// its reps back to back on each; compare -variants says paired only for
// the points whose reps alternated, and two samples for the others
// (issue 44: it said "their reps alternate point by point" of all).
func TestPairedVariantsSayWhichPointsAlternated(t *testing.T) {
	sql := filepath.ToSlash(filepath.Join(repoRoot(t), "specs", "mentat", "sql"))
	spec, data := quickstartText(t, true, "  reps    = 2\n", "  reps    = 2\n  order   = \"paired\"\n", `backend "duckdb" {`, strings.ReplaceAll(smallCache, "SQL", sql))
	o, dir := apply(t, spec, runner.Options{DataDir: data},
		config.VarArg{Name: "backends", Value: `["sqlite", "sqlite_small"]`},
		config.VarArg{Name: "scenarios", Value: `["point_lookup", "write_mixed"]`},
		config.VarArg{Name: "mixed_s", Value: "0.2"},
		config.VarArg{Name: "reps", Value: "2"})
	if o.Failed() {
		t.Fatalf("failed: %v %+v", o.Failures, o.Checks)
	}
	v, err := compare.Variants(dir, "sqlite", "sqlite_small", compare.Options{ThresholdPct: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := v.String()
	t.Log(out)
	var paired, unpaired int
	for _, m := range v.Verdicts {
		switch {
		case m.Order == nil:
			t.Errorf("%s %s: no order", m.What, m.Metric)
		case strings.HasPrefix(m.What, "point_lookup ") && !m.Order.Alternated:
			t.Errorf("%s: %s, want alternated", m.What, m.Order.How)
		case strings.HasPrefix(m.What, "write_mixed ") && (m.Order.Alternated || !strings.Contains(m.Order.How, "ran before")):
			t.Errorf("%s: %+v, want back to back", m.What, m.Order)
		case m.Order.Alternated:
			paired++
		default:
			unpaired++
		}
	}
	if paired == 0 || unpaired == 0 {
		t.Errorf("%d paired and %d unpaired metrics:\n%s", paired, unpaired, out)
	}
	for _, w := range []string{"paired: reps alternated", "unpaired (two samples): the 2 reps of sqlite ran before the 2 of sqlite_small", "whose reps did not"} {
		if !strings.Contains(out, w) {
			t.Errorf("the verdict lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "on every point") {
		t.Errorf("the verdict claims every point paired:\n%s", out)
	}
}
