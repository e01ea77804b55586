package runner_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// powerKeys is a zipf-like key chooser defined in this test file alone:
// id floor(n * u^skew), the lowest ids hottest.
type powerKeys struct{ skew float64 }

func (k powerKeys) Draw(d datagen.Draws, n int64) int64 {
	return min(int64(float64(n)*math.Pow(d.Unit(), k.skew)), n-1)
}
func (powerKeys) Hottest(int64) int64 { return 0 }

func init() {
	datagen.RegisterChooser(datagen.Chooser{
		Kind: "power", Doc: "A reference to an entity of a kind, id n*u^skew.",
		Params:  []datagen.ChooserParam{{Name: "skew", Valid: func(s float64) bool { return s >= 1 && !math.IsInf(s, 0) }, Want: "must be finite and >= 1"}},
		Compile: func(a []float64, _ uint64, _ int64) datagen.Distribution { return powerKeys{a[0]} },
	})
}

// TestRegisteredChooserFromHCL: a key chooser registered in a test file
// is an HCL function the dataset draws references with and pick() draws
// parameters with; the quickstart's checks against the dataset's truth
// pass with it.
func TestRegisteredChooserFromHCL(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a database")
	}
	spec, data := quickstartText(t, false,
		`gen  = zipf("user", 1.1) # a few users get most issues`, `gen  = power("user", 3)`,
		`params = { e = pick("issue") }`, `params = { e = pick(power("issue", 2)) }`)
	p := buildPlan(t, spec)
	cell := p.Scales[0].Cells[0]
	if a, ok := cell.Scale.Gen.Attr("issue/assignee"); !ok || a.Gen.Kind != "power" || len(a.Gen.Args) != 1 || a.Gen.Args[0] != 3 {
		t.Fatalf("issue/assignee's generator = %+v, want power(\"user\", 3)", a.Gen)
	}
	if q := cell.Queries["pull"]; q == nil || !strings.Contains(q.Params["e"].String(), `pick(power("issue", 2))`) {
		t.Fatalf("pull's parameter is not pick(power(\"issue\", 2)): %+v", q)
	}
	dir := filepath.Join(t.TempDir(), "results")
	o, err := runner.Run(context.Background(), p, runner.Options{Registry: drivers.Default, ResultsDir: dir, DataDir: data, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	assertQuickstartResults(t, dir, "sqlite", o)
}
