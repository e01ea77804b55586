package plan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
)

// write_mixed runs assignments of one attribute: the plan refuses an
// insert, a multi-attribute generator, an additive write or a transaction
// at its generator = line, and builds with an update given as attrs of one.
func TestPlanWriteMixedRefusesInsertsSeveralAttributesAndTransactions(t *testing.T) {
	for _, tc := range []struct {
		name, write, want string // want "" builds
	}{
		{"insert", `entity = "issue"
    insert = true`, `"w" is an insert`},
		{"several attrs", `entity = "issue"
    attrs  = ["issue/state", "issue/priority"]
    target = zipf("issue", 1.1)`, `"w" updates one of 2`},
		{"additive", `entity = "issue"
    attr   = "issue/priority"
    delta  = uniform(-1, 1)
    target = zipf("issue", 1.1)`, `"w" adds a delta`},
		{"transaction", `step "a" {
      entity = "issue"
      target = zipf("issue", 1.1)
      attr   = "issue/priority"
      delta  = uniform(1, 2)
    }`, `"w" is a transaction of 1 steps`},
		{"attrs of one, redrawn", `entity = "issue"
    attrs  = ["issue/state"]
    target = zipf("issue", 1.1)`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			override := filepath.Join(t.TempDir(), "writes_override.hcl")
			text := `dataset "issues" {
  write "w" {
    ` + tc.write + `
  }
}
scenario "write_mixed" {
  write {
    generator = "w"
    query     = query.write_state
  }
}
`
			if err := os.WriteFile(override, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			spec, diags := config.Load([]string{"../../examples/quickstart.hcl", override}, config.Options{Env: []string{},
				Vars: []config.VarArg{{Name: "scenarios", Value: `["write_mixed"]`}, {Name: "backends", Value: `["sqlite"]`}}})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			// validate refuses what plan refuses, with the same diagnostic.
			vdiags := resolve.Validate(spec, plan.Drivers(drivers.Default))
			if tc.want == "" && vdiags.HasErrors() {
				t.Fatalf("validate refused: %s", vdiags.Error())
			}
			if tc.want != "" && !strings.Contains(vdiags.Error(), tc.want) {
				t.Errorf("validate: got %q, want %q", vdiags.Error(), tc.want)
			}
			_, diags = planbuild.Build(context.Background(), spec, plan.Drivers(drivers.Default), 1)
			got := diags.Error()
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			// At the generator = line of the override, where the name is.
			line := strings.Count(text[:strings.Index(text, "generator")], "\n") + 1
			if !strings.Contains(got, tc.want) || !strings.Contains(got, fmt.Sprintf("writes_override.hcl:%d,", line)) {
				t.Errorf("got %q, want %q at the generator's line (%d)", got, tc.want, line)
			}
		})
	}
}
