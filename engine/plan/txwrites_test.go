package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// A mistake in an additive write or a transaction is a diagnostic at a
// file:line:col of the spec, never a panic; a correct one plans.
func TestPlanTransactionWriteMistakes(t *testing.T) {
	step := func(body string) string {
		return `step "a" {
      entity = "issue"
      target = zipf("issue", 1.1)
      ` + body + `
    }`
	}
	for _, tc := range []struct {
		name, write, want string // want "" plans
	}{
		{"additive", `entity = "issue"
    attr   = "issue/priority"
    delta  = uniform(-1, 1)
    target = zipf("issue", 1.1)`, ""},
		{"transaction", `draws = { amount = uniform(1, 9) }
    abort_if = read.priority > 3
    ` + step(`attr = "issue/priority"
      delta = -draw.amount`) + `
    step "b" {
      entity        = "issue"
      target        = ref("issue")
      distinct_from = "a"
      attr          = "issue/priority"
      delta         = draw.amount
    }
    step "c" {
      entity = "user"
      via    = "a.issue/assignee"
      attr   = "user/name"
      value  = const("x")
    }`, ""},
		{"delta on a double", `entity = "issue"
    attr   = "issue/estimate"
    delta  = uniform(-1, 1)
    target = zipf("issue", 1.1)`, `a delta adds to a long`},
		{"value and delta", step(`attr = "issue/priority"
      value = uniform(1, 2)
      delta = uniform(1, 2)`), `Set value (an assignment) or delta`},
		{"entity beside steps", `entity = "issue"
    ` + step(`attr = "issue/priority"
      delta = uniform(1, 2)`), `belong to them`},
		{"abort_if without steps", `abort_if = true`, `declare its step blocks`},
		{"via unknown step", `step "a" {
      entity = "issue"
      via    = "nope.issue/assignee"
      attr   = "issue/priority"
      delta  = uniform(1, 2)
    }`, `STEP an earlier step`},
		{"distinct from a later step", step(`attr = "issue/priority"
      distinct_from = "a"
      delta = uniform(1, 2)`), `must name an earlier update step`},
		{"float draw", `draws = { x = uniform_float(0, 1) }
    ` + step(`attr = "issue/priority"
      delta = draw.x`), `a draw is a whole number`},
		{"unknown root", step(`attr = "issue/priority"
      delta = nope.x`), `nope`},
		{"mixed forms", step(`attr = "issue/priority"
      delta = uniform(1, 2)`) + `
  }
  write "w2" {
    entity = "issue"
    attr   = "issue/priority"
    target = ref("issue")`, `either assigned or added to`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			override := filepath.Join(t.TempDir(), "writes_override.hcl")
			text := `dataset "issues" {
  write "w" {
    ` + tc.write + `
  }
}
`
			if err := os.WriteFile(override, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			spec, diags := config.Load([]string{"../../examples/quickstart.hcl", override}, config.Options{Env: []string{},
				Vars: []config.VarArg{{Name: "backends", Value: `["sqlite"]`}, {Name: "scenarios", Value: `["point_lookup"]`}}})
			if !diags.HasErrors() {
				diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
			}
			if !diags.HasErrors() {
				_, diags = planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
			}
			got := diags.Error()
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if !regexp.MustCompile(`\.hcl:\d+,\d+`).MatchString(got) {
				t.Errorf("%q names no file:line,col", got)
			}
			if tc.name == "via unknown step" && !strings.Contains(got, "writes_override.hcl:3,") {
				t.Errorf("%q: want the step's own line, 3", got)
			}
		})
	}
}

// A check run during its scenario (during_ms) is an invariant: one that
// reads the truth, which moves with every commit, or with a bad interval
// is refused at its line; one with constant expectations plans and says
// so.
func TestPlanDuringChecks(t *testing.T) {
	for _, tc := range []struct {
		name, check, want string // want "" plans
	}{
		{"constant", `expect_rows = 1
    during_ms   = 50`, ""},
		{"reads the truth", `expect_rows = length(truth.sample_users)
    during_ms   = 50`, "truth.sample_users"},
		{"zero interval", `expect_rows = 1
    during_ms   = 0`, "positive whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			override := filepath.Join(t.TempDir(), "during_override.hcl")
			text := `scenario "point_lookup" {
  check "one" {
    query  = query.q1
    params = { email = "user1@example.com" }
    ` + tc.check + `
  }
}
`
			if err := os.WriteFile(override, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			spec, diags := config.Load([]string{"../../examples/quickstart.hcl", override}, config.Options{Env: []string{},
				Vars: []config.VarArg{{Name: "backends", Value: `["sqlite"]`}, {Name: "scenarios", Value: `["point_lookup"]`}}})
			if !diags.HasErrors() {
				diags = append(diags, resolve.Validate(spec, plan.Drivers(drivers.Default))...)
			}
			var p *plan.Plan
			if !diags.HasErrors() {
				p, diags = planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
			}
			got := diags.Error()
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %s", got)
				}
				var b strings.Builder
				if err := p.Render(&b); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(b.String(), "check one: query q1, also every 50 ms during the scenario") {
					t.Errorf("plan does not say the check runs during the scenario:\n%s", b.String())
				}
				return
			}
			if !strings.Contains(got, tc.want) || !strings.Contains(got, "during_override.hcl:6,") {
				t.Errorf("got %q, want %q at during_ms's line", got, tc.want)
			}
		})
	}
}
