package resolve

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/checkeval"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/zclconf/go-cty/cty"
)

// CheckCase is one evaluated case of a check block.
type CheckCase struct {
	Check *config.CheckBlock
	checkeval.Case
}

// CheckCases evaluates a check for one cell, expanding for_each. ctx must
// hold truth.
func CheckCases(ck *config.CheckBlock, ctx *hcl.EvalContext) ([]CheckCase, hcl.Diagnostics) {
	cases, diags := checkeval.Cases(ck.Attrs, ctx)
	if cases == nil {
		return nil, diags
	}
	out := make([]CheckCase, len(cases))
	for i, c := range cases {
		out[i] = CheckCase{Check: ck, Case: c}
	}
	return out, diags
}

// ParamSpec converts a query or check parameter's value to its typed
// form (checkeval.ParamSpec).
func ParamSpec(v cty.Value) (params.Spec, error) { return checkeval.ParamSpec(v) }

// ParamConst converts a constant parameter value (checkeval.ParamConst).
func ParamConst(v cty.Value) (any, error) { return checkeval.ParamConst(v) }
