package plan

import (
	"encoding/json"
	"fmt"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Check is one check of a scenario, resolved against the scale's truth.
type Check struct {
	Name  string
	Query string
	// Err is set when the check could not be evaluated (a FAIL).
	Err   string
	Cases []CheckCase
	// DuringMS, when set, also runs the check every that many
	// milliseconds while the scenario runs (an invariant; during.go).
	DuringMS int64
}

// CheckCase is one case of a check (one for_each element).
type CheckCase struct {
	Key    string                 // the for_each key; "" without for_each
	Params map[string]params.Spec // the check's params, over the query's
	Expect checks.Expect
}

// Truth is a scale's truth ready for checks: computed once per scale and
// shared by its cells.
type Truth struct {
	Values *truth.Truth
	hcl    cty.Value
}

// NewTruth converts computed truth for check expressions.
func NewTruth(t *truth.Truth) (*Truth, error) {
	raw, err := json.Marshal(t.Values)
	if err != nil {
		return nil, fmt.Errorf("encoding truth: %w", err)
	}
	ty, err := ctyjson.ImpliedType(raw)
	if err != nil {
		return nil, fmt.Errorf("truth as HCL values: %w", err)
	}
	v, err := ctyjson.Unmarshal(raw, ty)
	if err != nil {
		return nil, fmt.Errorf("truth as HCL values: %w", err)
	}
	return &Truth{Values: t, hcl: v}, nil
}

// Checks resolves a scenario's checks in this cell with the scale's truth.
func (c *Cell) Checks(s *Scenario, truth *Truth) []Check {
	if s.def == nil {
		return nil
	}
	ctx := c.plan.spec.CellContext(c.cell, truth.hcl)
	var out []Check
	type named struct {
		*config.CheckBlock
		name string
	}
	all := make([]named, 0, len(s.def.Checks)+len(s.borrowed))
	for _, ck := range s.def.Checks {
		all = append(all, named{ck, ck.Name})
	}
	for _, bc := range s.borrowed {
		all = append(all, named{bc.check, bc.name()})
	}
	for _, ck := range all {
		rc := Check{Name: ck.name, Query: ck.Query, DuringMS: duringMS(ck.CheckBlock, ctx)}
		cases, diags := resolve.CheckCases(ck.CheckBlock, ctx)
		if diags.HasErrors() {
			rc.Err = "cannot evaluate the check: " + diags.Error()
			out = append(out, rc)
			continue
		}
		for _, cc := range cases {
			pc := CheckCase{Key: cc.Key, Expect: cc.Expect, Params: map[string]params.Spec{}}
			for name, v := range cc.Params {
				ps, err := resolve.ParamSpec(v)
				if err != nil {
					rc.Err = fmt.Sprintf("check param %q: %v", name, err)
					break
				}
				pc.Params[name] = ps
			}
			rc.Cases = append(rc.Cases, pc)
		}
		out = append(out, rc)
	}
	return out
}
