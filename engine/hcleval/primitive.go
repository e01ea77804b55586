package hcleval

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// PrimitiveList evaluates a list of strings, numbers or bools into their
// text (Primitive), each item as written.
func PrimitiveList(e hcl.Expression, ctx *hcl.EvalContext, what string) ([]string, hcl.Diagnostics) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, append(diags, AttrError(e, "Incorrect attribute value type", what+" must be a list."))
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		s, err := Primitive(ev)
		if err != nil {
			return nil, append(diags, AttrError(e, "Incorrect attribute value type", what+": "+err.Error()))
		}
		out = append(out, s)
	}
	return out, diags
}

// Primitive renders a string, number or bool as text: a whole number
// without a decimal point, other numbers in the shortest form that reads back exactly.
func Primitive(v cty.Value) (string, error) {
	if v.IsNull() || !v.IsKnown() {
		return "", fmt.Errorf("the value must be known and not null")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		f := Float(v)
		if f == math.Trunc(f) && math.Abs(f) < 1e18 {
			return fmt.Sprintf("%d", int64(f)), nil
		}
		return v.AsBigFloat().Text('g', -1), nil
	case cty.Bool:
		s, _ := convert.Convert(v, cty.String)
		return s.AsString(), nil
	}
	return "", fmt.Errorf("want a string, number or bool, got %s", v.Type().FriendlyName())
}
