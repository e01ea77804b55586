// Package kindtest is the conformance suite of scenario kinds: what every
// kind must do, whatever it measures. A kind's package runs it from its
// own tests with a scenario body of its kind:
//
//	func TestConformance(t *testing.T) {
//		kindtest.Run(t, closedloop.Kind{}, kindtest.Case{
//			Body: "clients = [1, 2]\nread {\n  query = query.fast\n}\n",
//		})
//	}
//
// It runs the kind through the real engine on a real SQLite store of the
// mentat workload's tiny dataset: the spec is loaded, planned and applied
// as `mentat-spec apply` does. The scenario's body may read query.fast (a
// point lookup), query.slow (seconds per call, far past the ceiling),
// query.write_state and query.state_now (the dataset's write
// "state_change" and the read of the state it wrote).
package kindtest

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	_ "github.com/mentat-spec/mentat-spec/drivers/all" // the SQLite driver
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	_ "github.com/mentat-spec/mentat-spec/engine/kinds/all" // the registry the loader reads
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// Case is the scenario a kind is tested with.
type Case struct {
	// Body is the scenario's body after `kind = "NAME"`: the kind's own
	// attributes and blocks, measuring query.fast (or writing).
	Body string
	// SlowBody is the same scenario with its calls past the ceiling
	// (query.slow): the kind must bound the point by the ceiling and
	// record the slow calls, never drop them. Empty: the kind runs no
	// call a ceiling applies to.
	SlowBody string
	// Unknown is an attribute line the kind must refuse at its line;
	// default "no_such_attribute = 1".
	Unknown string
}

// scenario is the name of the scenario under test.
const scenario = "under_test"

// probe is the per-call ceiling of every case, in seconds.
const probe = 0.3

// Run runs the conformance suite of kind k on c.
func Run(t *testing.T, k kind.Kind, c Case) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads a database")
	}
	t.Run("schema", func(t *testing.T) { testSchema(t, k, c) })
	t.Run("points", func(t *testing.T) { testPoints(t, k, c) })
	t.Run("rows, estimate, cancellation", func(t *testing.T) { testRun(t, k, c) })
	if c.SlowBody != "" {
		t.Run("ceiling", func(t *testing.T) { testCeiling(t, k, c) })
	}
}

// testSchema: the kind names itself, declares a schema, and an attribute
// it does not know is refused at its line (file:line:col), not ignored.
func testSchema(t *testing.T, k kind.Kind, c Case) {
	if k.Name() == "" || k.Schema() == nil {
		t.Fatalf("kind %T: name %q, schema %v", k, k.Name(), k.Schema())
	}
	unknown := c.Unknown
	if unknown == "" {
		unknown = "no_such_attribute = 1"
	}
	path, _ := writeSpec(t, k, unknown+"\n"+c.Body)
	_, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if !diags.HasErrors() {
		t.Fatalf("%q was accepted in a %s scenario", unknown, k.Name())
	}
	d := diags[0]
	if d.Subject == nil || d.Subject.Filename != path || d.Subject.Start.Line != bodyLine(t, path) {
		t.Errorf("diagnostic %q at %v, want %s line %d", d.Summary, d.Subject, path, bodyLine(t, path))
	}
}

// testPoints: the scenario expands into points, each described once, with
// an estimate lo <= hi and hi > 0.
func testPoints(t *testing.T, k kind.Kind, c Case) {
	path, _ := writeSpec(t, k, c.Body)
	p := build(t, path)
	sc := find(t, p)
	if len(sc.Points) == 0 {
		t.Fatal("no points")
	}
	seen := map[string]bool{}
	for _, pt := range sc.Points {
		d := pt.Describe()
		if d == "" || seen[d] {
			t.Errorf("point described as %q (empty or twice)", d)
		}
		seen[d] = true
		lo, hi := pt.Estimate()
		if lo < 0 || hi < lo || hi <= 0 {
			t.Errorf("point %q: estimate %s to %s", d, lo, hi)
		}
		if ex, ok := pt.(kind.Expecter); ok && (ex.Expected() < lo || ex.Expected() > hi) {
			t.Errorf("point %q: expected %s outside its estimate %s to %s", d, ex.Expected(), lo, hi)
		}
	}
}

// testRun: every point's rows reach the results (a timing row, raw rows,
// counts above zero, no errors); the scenario ends within its plan's
// estimate; a cancelled run returns promptly.
func testRun(t *testing.T, k kind.Kind, c Case) {
	path, data := writeSpec(t, k, c.Body)
	o, res, wall, hi, err := timedRun(t, path, data)
	if err != nil || len(o.Failures) > 0 {
		t.Fatalf("run: %v %v", err, o.Failures)
	}
	if slack := 5 * time.Second; wall > hi+slack {
		t.Errorf("the scenario took %s, its estimate says at most %s (+%s)", wall, hi, slack)
	}
	timings := rows(t, filepath.Join(res, "timings.csv"))
	raw := rows(t, filepath.Join(res, "raw.csv"))
	if len(timings) == 0 || len(raw) == 0 {
		t.Fatalf("%d timing rows, %d raw rows: every point emits its rows", len(timings), len(raw))
	}
	cell := build(t, path).Scales[0].Cells[0]
	for _, r := range timings {
		if r["scenario"] != scenario || r["backend"] != cell.Backend.Name || r["scale"] != cell.Scale.Name {
			t.Errorf("row %v: scenario, backend and scale set by the runner", r)
		}
		if r["count"] == "0" || r["errors"] != "0" {
			t.Errorf("row %v: calls counted, none failed", r)
		}
	}

	// Cancelled a little after it started, the run returns within the
	// ceiling and the stop grace, with what it measured kept.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 := time.Now()
	_, _ = apply(t, ctx, build(t, path), filepath.Join(t.TempDir(), "cancelled"), data)
	if took := time.Since(t0); took > 15*time.Second {
		t.Errorf("a cancelled run returned after %s", took)
	}
}

// testCeiling: calls past the ceiling end the point within the ceiling
// and the stop grace of its estimate, and show in the rows (a ceiling row,
// timeouts or errors), never as a clean measurement.
func testCeiling(t *testing.T, k kind.Kind, c Case) {
	path, data := writeSpec(t, k, c.SlowBody)
	_, res, wall, hi, err := timedRun(t, path, data)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if limit := hi + time.Duration(probe*float64(time.Second)) + 10*time.Second; wall > limit {
		t.Errorf("with calls past the ceiling the run took %s, more than %s", wall, limit)
	}
	timings := rows(t, filepath.Join(res, "timings.csv"))
	if len(timings) == 0 {
		t.Fatal("no timing row: a point past the ceiling is recorded as such")
	}
	shown := false
	for _, r := range timings {
		if r["op"] == "ceiling" || r["errors"] != "0" {
			shown = true
			continue
		}
		// A clean row holds no call longer than the ceiling.
		var maxMS float64
		fmt.Sscan(r["max_ms"], &maxMS)
		if maxMS > probe*1000 {
			t.Errorf("row %v: a call past the %gs ceiling counted as clean", r, probe)
		}
	}
	if !shown {
		t.Errorf("no row shows the calls past the ceiling (a ceiling row, or errors): %v", timings)
	}
}

// timedRun loads the store of the spec at path, then applies it again on
// the loaded store: that run's outcome, results directory, wall time (the
// scenario's, its checks' and reports'), and the sum of the points'
// estimated upper bounds.
func timedRun(t *testing.T, path, data string) (*runner.Outcome, string, time.Duration, time.Duration, error) {
	t.Helper()
	p := build(t, path)
	var hi time.Duration
	for _, pt := range find(t, p).Points {
		_, h := pt.Estimate()
		hi += h
	}
	apply(t, context.Background(), p, filepath.Join(t.TempDir(), "load"), data)
	res := filepath.Join(t.TempDir(), "results")
	t0 := time.Now()
	o, err := apply(t, context.Background(), build(t, path), res, data)
	return o, res, time.Since(t0), hi, err
}

// repoRoot is the source tree, for the shipped workload's files.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// writeSpec writes the case's spec (testdata/kind.hcl with the case's
// scenario) and returns its path and data dir.
func writeSpec(t *testing.T, k kind.Kind, body string) (path, data string) {
	t.Helper()
	dir := t.TempDir()
	m := filepath.ToSlash(filepath.Join(repoRoot(t), "specs", "mentat"))
	data = filepath.Join(dir, "data")
	tmpl, err := os.ReadFile(filepath.Join(repoRoot(t), "engine", "kindtest", "testdata", "kind.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(string(tmpl), probe, m, filepath.ToSlash(data), scenario, k.Name(), body)
	path = filepath.Join(dir, "kind.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// bodyLine is the line of the scenario body's first line in path.
func bodyLine(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "  kind = ") {
			return i + 2
		}
	}
	t.Fatal("no kind line")
	return 0
}

func build(t *testing.T, path string) *plan.Plan {
	t.Helper()
	spec, diags := config.Load([]string{path}, config.Options{Env: []string{}})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	return p
}

func find(t *testing.T, p *plan.Plan) *plan.Scenario {
	t.Helper()
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			for _, sc := range c.Scenarios {
				if sc.Name == scenario {
					return sc
				}
			}
		}
	}
	t.Fatalf("no scenario %q in the plan", scenario)
	return nil
}

func apply(t *testing.T, ctx context.Context, p *plan.Plan, res, data string) (*runner.Outcome, error) {
	t.Helper()
	return runner.Run(ctx, p, runner.Options{Registry: drivers.Default, ResultsDir: res, DataDir: data, Workers: 2})
}

// rows reads a CSV file as maps by header.
func rows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range all[1:] {
		m := map[string]string{}
		for i, h := range all[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}
