package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	kindsall "github.com/mentat-spec/mentat-spec/engine/kinds/all"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/results"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// burst is a toy scenario kind defined here, outside the engine: each
// point makes exactly `calls` calls of one query on one client and emits
// one timing row with op "burst". It proves a kind is one type registered
// in a Registry: nothing in config, plan or runner names it.
type burst struct{}

func (burst) Name() string { return "burst" }

func (burst) Schema() *hcl.BodySchema {
	return &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "query", Required: true}, {Name: "calls", Required: true}, {Name: "rounds"},
	}}
}

func (burst) Decode(c *hcl.BodyContent, ctx *hcl.EvalContext) (kind.Definition, hcl.Diagnostics) {
	q, diags := kind.String(c.Attributes["query"].Expr, ctx, "query")
	n, d := kind.Int(c.Attributes["calls"].Expr, ctx, "calls", 1)
	diags = append(diags, d...)
	rounds := 1
	if a, ok := c.Attributes["rounds"]; ok {
		rounds, d = kind.Int(a.Expr, ctx, "rounds", 1)
		diags = append(diags, d...)
	}
	return &burstDef{query: q, calls: n, rounds: rounds}, diags
}

type burstDef struct {
	query         string
	calls, rounds int
}

func (d *burstDef) Queries() []string { return []string{d.query} }
func (d *burstDef) Writes() bool      { return false }
func (d *burstDef) Points(measure.Sampling) []kind.Point {
	var out []kind.Point
	for i := 1; i <= d.rounds; i++ {
		out = append(out, &burstPoint{def: d, round: i})
	}
	return out
}

type burstPoint struct {
	def   *burstDef
	round int
}

func (p *burstPoint) Describe() string {
	return fmt.Sprintf("round %d: %d calls of %s", p.round, p.def.calls, p.def.query)
}

func (p *burstPoint) Estimate() (time.Duration, time.Duration) { return 0, time.Second }

func (p *burstPoint) Run(ctx context.Context, env kind.Env) error {
	cl, err := env.OpenClient(ctx, []string{p.def.query}, 0, env.Seed())
	if err != nil {
		return err
	}
	defer cl.Close()
	start := time.Now()
	var errs int64
	for i := 0; i < p.def.calls; i++ {
		if err := cl.Call(ctx); err != nil {
			errs++
		}
	}
	elapsed := time.Since(start)
	row := env.Row()
	row.Op, row.Clients, row.Count, row.Errors, row.Reps, row.Rep = "burst", p.round, int64(p.def.calls)-errs, errs, 1, 1
	mean := float64(elapsed) / float64(p.def.calls) / float64(time.Millisecond)
	row.P50Ms, row.P95Ms, row.P99Ms, row.MaxMs = mean, mean, mean, mean
	row.Throughput = float64(p.def.calls) / elapsed.Seconds()
	env.Emit(results.Raw(row))
	env.Emit(results.Timing(row))
	return nil
}

func TestToyKindEndToEnd(t *testing.T) {
	reg := kind.NewRegistry()
	kindsall.Register(reg)
	if err := reg.Register(burst{}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(burst{}); err == nil {
		t.Fatal("a second registration of a kind succeeded")
	}
	specPath, dataDir := tinyQuickstart(t)
	extra := `
scenario "burst_q1" {
  kind   = "burst"
  query  = query.q1
  calls  = 40
  rounds = 2
  check "still_answers" {
    query         = query.q1
    for_each      = truth.sample_users
    params        = { email = each.value["user/email"] }
    expect_rows   = 1
  }
}
`
	f, err := os.OpenFile(specPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(extra)
	f.Close()

	// The default registry does not know the kind: a diagnostic at its line.
	if _, diags := config.Load([]string{specPath}, config.Options{}); !diags.HasErrors() || !strings.Contains(diags.Error(), `kind "burst"`) {
		t.Fatalf("without the kind registered: %v", diags)
	}

	spec, diags := config.Load([]string{specPath}, config.Options{Kinds: reg,
		Vars: []config.VarArg{{Name: "data_dir", Value: dataDir}}})
	if !diags.HasErrors() {
		diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
	}
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 2)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var rendered strings.Builder
	if err := p.Render(&rendered); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rendered.String(), "burst_q1 (burst)") || !strings.Contains(rendered.String(), "round 2: 40 calls of q1") {
		t.Errorf("plan does not show the toy kind's points:\n%s", rendered.String())
	}
	dir := filepath.Join(t.TempDir(), "results")
	o, err := runner.Run(context.Background(), p, runner.Options{Registry: drivers.Default, ResultsDir: dir, DataDir: dataDir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if o.Failed() {
		t.Fatalf("run failed: %v, checks %+v", o.Failures, o.Checks)
	}
	var bursts []string
	for _, row := range readCSV(t, filepath.Join(dir, results.TimingsFile))[1:] {
		if row[0] == "burst_q1" {
			bursts = append(bursts, row[4]+":"+row[5]+":"+row[6])
		}
	}
	if want := "1:burst:40 2:burst:40"; strings.Join(bursts, " ") != want {
		t.Errorf("burst rows (clients:op:count) %q, want %q", strings.Join(bursts, " "), want)
	}
	checks, err := os.ReadFile(filepath.Join(dir, results.ChecksFile))
	if err != nil || !strings.Contains(string(checks), "PASS burst_q1 sqlite xs still_answers") {
		t.Errorf("the toy scenario's check did not pass:\n%s", checks)
	}
}
