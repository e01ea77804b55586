package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// sensitiveTexts is every string and number inside v, as text: what a
// writer could print of it.
func sensitiveTexts(v cty.Value) []string {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String || ty == cty.Number:
		s, err := convert.Convert(v, cty.String)
		if err != nil || s.IsNull() || !s.IsKnown() {
			return nil
		}
		return []string{s.AsString()}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		var out []string
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if ty.IsMapType() || ty.IsObjectType() {
				out = append(out, sensitiveTexts(k)...)
			}
			out = append(out, sensitiveTexts(e)...)
		}
		return out
	}
	return nil // a bool cannot be kept out of text
}

// registerSensitive hands the values of the sensitive variables to the
// redactor, so that no output of this process writes them, whatever
// attribute they are used in. A value shorter than redact.MinLen is
// refused: replacing it wherever it occurs would garble the output.
func (s *Spec) registerSensitive() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, v := range s.Variables {
		if !v.Sensitive {
			continue
		}
		for _, t := range sensitiveTexts(v.Value) {
			if t == "" {
				continue
			}
			if len(t) < redact.MinLen {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Sensitive value too short",
					Detail: fmt.Sprintf("Variable %q (from %s) is sensitive and holds a value of %d characters: a sensitive value is replaced wherever it occurs in the output, and one shorter than %d characters would garble it. Use a longer value or drop sensitive.",
						v.Name, v.Source, len(t), redact.MinLen),
					Subject: v.DeclRange.Ptr()})
				continue
			}
			redact.Add(t)
		}
		if v.Value != cty.NilVal && !v.Value.IsNull() && v.Value.IsKnown() && v.Value.Type() == cty.String {
			redact.SetEnv(EnvVarPrefix+v.Name, v.Value.AsString())
		}
	}
	return diags
}

// derived wraps f so that a string or number it computes from a
// sensitive value is redacted too: upper(var.tok) is as secret as
// var.tok. Functions returning collections are left alone (merge or
// concat would make every value beside the secret one).
func derived(f function.Function) function.Function {
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      f.Params(),
		VarParam:    f.VarParam(),
		Type:        f.ReturnTypeForValues,
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err != nil || v.IsNull() || !v.IsKnown() || (v.Type() != cty.String && v.Type() != cty.Number) {
				return v, err
			}
			for _, a := range args {
				if a.IsWhollyKnown() && anySensitive(a) {
					for _, t := range sensitiveTexts(v) {
						if len(t) >= redact.MinLen {
							redact.Add(t)
						}
					}
					break
				}
			}
			return v, nil
		},
	})
}

func anySensitive(v cty.Value) bool {
	for _, t := range sensitiveTexts(v) {
		if redact.Contains(t) {
			return true
		}
	}
	return false
}
