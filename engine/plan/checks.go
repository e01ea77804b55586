package plan

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/engine/checkeval"
	"github.com/mentat-spec/mentat-spec/engine/params"
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

// Checker is a scenario's checks prepared in its cell: each check's
// expressions and the context they evaluate in (the spec's variables,
// locals and functions, the cell's scale and backend, captured when the
// plan was built), waiting for the truth alone, which a run knows after
// loading and advances with the writes that commit.
type Checker struct {
	Context *hcl.EvalContext
	// Checks are the scenario's own, in the spec's order, then those it
	// borrows.
	Checks []CheckDef
}

// CheckDef is a check as the spec declares it.
type CheckDef struct {
	Name  string
	Query string
	Attrs hcl.Attributes // its attributes as written
	// From is the scenario declaring it, when the scenario borrows it
	// (other scenarios declare checks for the queries it runs and checks
	// not: a fast wrong answer must not look like a win where nobody
	// checks it, the sweep at 128 clients); "" for its own.
	From string
}

// Label is the check's name in checks.txt: a borrowed check's with
// where it is declared.
func (d CheckDef) Label() string {
	if d.From == "" {
		return d.Name
	}
	return d.Name + " (from " + d.From + ")"
}

// Checks resolves a scenario's checks in this cell with the scale's truth.
func (c *Cell) Checks(s *Scenario, truth *Truth) []Check { return s.Checker.Eval(truth) }

// Eval evaluates the checks against truth, each to its cases; a check
// that cannot be evaluated has Err set (a FAIL).
func (k *Checker) Eval(truth *Truth) []Check {
	if k == nil {
		return nil
	}
	vars := maps.Clone(k.Context.Variables)
	if vars == nil {
		vars = map[string]cty.Value{}
	}
	vars["truth"] = truth.hcl
	ctx := &hcl.EvalContext{Variables: vars, Functions: k.Context.Functions}
	var out []Check
	for _, ck := range k.Checks {
		rc := Check{Name: ck.Label(), Query: ck.Query, DuringMS: duringMS(ck.Attrs, ctx)}
		cases, diags := checkeval.Cases(ck.Attrs, ctx)
		if diags.HasErrors() {
			rc.Err = "cannot evaluate the check: " + diags.Error()
			out = append(out, rc)
			continue
		}
		for _, cc := range cases {
			pc := CheckCase{Key: cc.Key, Expect: cc.Expect, Params: map[string]params.Spec{}}
			for name, v := range cc.Params {
				ps, err := checkeval.ParamSpec(v)
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
