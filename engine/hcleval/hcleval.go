// Package hcleval reads typed values out of HCL expressions for the spec
// decoder (engine/config) and the per-cell resolver (engine/resolve), each
// mistake a diagnostic at the expression that made it. name is the
// attribute as the spec writes it, for the diagnostic's text.
package hcleval

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// AttrError is an error diagnostic at expr.
func AttrError(expr hcl.Expression, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: expr.Range().Ptr()}
}

// Number evaluates expr as a number; unknown is 0 with no diagnostic.
func Number(expr hcl.Expression, ctx *hcl.EvalContext, name string) (float64, hcl.Diagnostics) {
	f, _, diags := KnownNumber(expr, ctx, name)
	return f, diags
}

// KnownNumber is Number saying whether the value is known: a caller with
// a default for values validate cannot know yet tells them from 0.
func KnownNumber(expr hcl.Expression, ctx *hcl.EvalContext, name string) (float64, bool, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return 0, false, diags
	}
	v, err := convert.Convert(v, cty.Number)
	if err != nil || v.IsNull() {
		return 0, false, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a number.", name))}
	}
	if !v.IsKnown() {
		return 0, false, nil
	}
	return Float(v), true, nil
}

// Int evaluates expr as a whole number.
func Int(expr hcl.Expression, ctx *hcl.EvalContext, name string) (int64, hcl.Diagnostics) {
	f, diags := Number(expr, ctx, name)
	if diags.HasErrors() {
		return 0, diags
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a whole number.", name))}
	}
	return int64(f), nil
}

// String evaluates expr as a string; unknown is "" with no diagnostic.
func String(expr hcl.Expression, ctx *hcl.EvalContext, name string) (string, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return "", diags
	}
	v, err := convert.Convert(v, cty.String)
	if err != nil || v.IsNull() {
		return "", hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a string.", name))}
	}
	if !v.IsKnown() {
		return "", nil
	}
	return v.AsString(), nil
}

// Bool evaluates expr as true or false; unknown is false.
func Bool(expr hcl.Expression, ctx *hcl.EvalContext, name string) (bool, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return false, diags
	}
	v, err := convert.Convert(v, cty.Bool)
	if err != nil || v.IsNull() {
		return false, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be true or false.", name))}
	}
	return v.IsKnown() && v.True(), nil
}

// StringList evaluates expr as a list of strings without nulls; a list
// not wholly known is nil with no diagnostic.
func StringList(expr hcl.Expression, ctx *hcl.EvalContext, name string) ([]string, hcl.Diagnostics) {
	out, _, diags := KnownStringList(expr, ctx, name)
	return out, diags
}

// KnownStringList is StringList saying whether the list is wholly known,
// so that a caller can refuse an empty list but not an unknown one.
func KnownStringList(expr hcl.Expression, ctx *hcl.EvalContext, name string) ([]string, bool, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return nil, false, diags
	}
	v, err := convert.Convert(v, cty.List(cty.String))
	if err != nil || v.IsNull() {
		return nil, false, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be a list of strings.", name))}
	}
	if !v.IsWhollyKnown() {
		return nil, false, nil
	}
	var out []string
	for _, e := range v.AsValueSlice() {
		if e.IsNull() {
			return nil, false, hcl.Diagnostics{AttrError(expr, "Invalid list", fmt.Sprintf("%s must not hold null.", name))}
		}
		out = append(out, e.AsString())
	}
	return out, true, nil
}

// StringMap reads an object or map of primitive values as strings.
func StringMap(expr hcl.Expression, ctx *hcl.EvalContext, name string) (map[string]string, hcl.Diagnostics) {
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsNull() {
		return map[string]string{}, nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s must be an object of strings, numbers or bools.", name))}
	}
	out := map[string]string{}
	if !v.IsWhollyKnown() {
		return out, nil
	}
	for k, e := range v.AsValueMap() {
		s, err := convert.Convert(e, cty.String)
		if err != nil || s.IsNull() {
			return nil, hcl.Diagnostics{AttrError(expr, "Incorrect attribute value type", fmt.Sprintf("%s: %q must be a string, number or bool.", name, k))}
		}
		out[k] = s.AsString()
	}
	return out, nil
}

// Float is a known number's value as a float64.
func Float(v cty.Value) float64 { f, _ := v.AsBigFloat().Float64(); return f }
