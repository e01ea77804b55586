package kind

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Helpers for kinds decoding their attributes: each diagnostic points at
// the attribute's expression.

// AttrError is a diagnostic at expr.
func AttrError(expr hcl.Expression, summary, detail string) *hcl.Diagnostic {
	return hcleval.AttrError(expr, summary, detail)
}

// Int evaluates a whole number. min is the smallest value allowed, and
// what an unknown value reads as.
func Int(expr hcl.Expression, ctx *hcl.EvalContext, name string, min int) (int, hcl.Diagnostics) {
	f, known, diags := hcleval.KnownNumber(expr, ctx, name)
	if diags.HasErrors() {
		return 0, diags
	}
	if !known {
		return min, nil
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || f > math.MaxInt32 {
		return 0, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a whole number.", name))}
	}
	if int(f) < min {
		return 0, hcl.Diagnostics{AttrError(expr, "Invalid "+name, fmt.Sprintf("%s must be at least %d, got %v.", name, min, f))}
	}
	return int(f), nil
}

// Number evaluates a number. min is the smallest value allowed, and what
// an unknown value reads as.
func Number(expr hcl.Expression, ctx *hcl.EvalContext, name string, min float64) (float64, hcl.Diagnostics) {
	f, known, diags := hcleval.KnownNumber(expr, ctx, name)
	if diags.HasErrors() {
		return 0, diags
	}
	if !known {
		return min, nil
	}
	if f < min || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, hcl.Diagnostics{AttrError(expr, "Invalid "+name, fmt.Sprintf("%s must be a finite number of at least %v, got %v.", name, min, f))}
	}
	return f, nil
}

// IntList evaluates a non-empty list of whole numbers >= min.
func IntList(expr hcl.Expression, ctx *hcl.EvalContext, name string, min int) ([]int, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	lv, err := convert.Convert(v, cty.List(cty.Number))
	if err != nil || lv.IsNull() {
		return nil, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a list of numbers, e.g. [1, 8, 32].", name))}
	}
	if !lv.IsWhollyKnown() {
		return []int{min}, nil
	}
	var out []int
	for _, e := range lv.AsValueSlice() {
		f, _ := e.AsBigFloat().Float64()
		if f < float64(min) || f != math.Trunc(f) || f > math.MaxInt32 {
			diags = append(diags, AttrError(expr, "Invalid "+name, fmt.Sprintf("%s are whole numbers >= %d, got %v.", name, min, f)))
			continue
		}
		out = append(out, int(f))
	}
	if len(out) == 0 && !diags.HasErrors() {
		diags = append(diags, AttrError(expr, "Invalid "+name, fmt.Sprintf("%s must list at least one value.", name)))
	}
	return out, diags
}

// Strings evaluates a non-empty list of strings (query.NAME references
// evaluate to their names).
func Strings(expr hcl.Expression, ctx *hcl.EvalContext, name string) ([]string, hcl.Diagnostics) {
	out, known, diags := hcleval.KnownStringList(expr, ctx, name)
	if diags.HasErrors() || !known {
		return nil, diags // unknown: validate cannot tell yet
	}
	if len(out) == 0 {
		return nil, hcl.Diagnostics{AttrError(expr, "Empty "+name, fmt.Sprintf("%s must name at least one query.", name))}
	}
	return out, nil
}

// String evaluates a string (a query.NAME reference evaluates to its name).
func String(expr hcl.Expression, ctx *hcl.EvalContext, name string) (string, hcl.Diagnostics) {
	return hcleval.String(expr, ctx, name)
}
