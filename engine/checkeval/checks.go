package checkeval

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Case is one evaluated case of a check (one for_each element).
type Case struct {
	Key    string
	Params map[string]cty.Value
	Expect checks.Expect
}

// Cases evaluates a check's attributes (params, for_each, expect_*) for
// one cell, expanding for_each. ctx must hold truth.
func Cases(attrs hcl.Attributes, ctx *hcl.EvalContext) ([]Case, hcl.Diagnostics) {
	type elem struct {
		key string
		k   cty.Value
		v   cty.Value
	}
	elems := []elem{{key: ""}}
	var diags hcl.Diagnostics
	if a, ok := attrs["for_each"]; ok {
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			return nil, diags
		}
		if !v.IsWhollyKnown() {
			elems = []elem{{key: "?", k: cty.DynamicVal, v: cty.DynamicVal}}
		} else {
			ty := v.Type()
			switch {
			case v.IsNull():
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid for_each", "for_each is null."))
				return nil, diags
			case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
				elems = nil
				i := 0
				for it := v.ElementIterator(); it.Next(); i++ {
					_, ev := it.Element()
					elems = append(elems, elem{key: caseKey(ev, i), k: cty.NumberIntVal(int64(i)), v: ev})
				}
			case ty.IsMapType() || ty.IsObjectType():
				elems = nil
				m := v.AsValueMap()
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					elems = append(elems, elem{key: k, k: cty.StringVal(k), v: m[k]})
				}
			default:
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid for_each", "for_each must be a list or an object."))
				return nil, diags
			}
			if len(elems) == 0 {
				diags = append(diags, hcleval.AttrError(a.Expr, "Empty for_each", "for_each has no elements, so the check would check nothing."))
				return nil, diags
			}
		}
	}
	var cases []Case
	for _, e := range elems {
		ectx := ctx
		if e.k != cty.NilVal {
			ectx = ctx.NewChild()
			ectx.Variables = map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": e.k, "value": e.v})}
		}
		cc, d := checkCase(attrs, ectx)
		diags = append(diags, d...)
		if d.HasErrors() {
			return nil, diags
		}
		cc.Key = e.key
		cases = append(cases, cc)
	}
	return cases, diags
}

func checkCase(attrs hcl.Attributes, ctx *hcl.EvalContext) (Case, hcl.Diagnostics) {
	cc := Case{Params: map[string]cty.Value{}}
	var diags hcl.Diagnostics
	if a, ok := attrs["params"]; ok {
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			if !v.Type().IsObjectType() && !v.Type().IsMapType() {
				diags = append(diags, hcleval.AttrError(a.Expr, "Incorrect attribute value type", "params must be an object."))
			} else if v.IsKnown() {
				for k, pv := range v.AsValueMap() {
					cc.Params[k] = pv
				}
			}
		}
	}
	if a, ok := attrs["expect_rows"]; ok {
		n, d := hcleval.Int(a.Expr, ctx, "expect_rows")
		diags = append(diags, d...)
		cc.Expect.Rows = &n
	}
	if a, ok := attrs["expect_values"]; ok {
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			m, err := objectToGo(v)
			if err != nil {
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid expect_values", err.Error()))
			}
			cc.Expect.Values = m
		}
	}
	for _, name := range []string{"expect_set", "expect_list"} {
		a, ok := attrs[name]
		if !ok {
			continue
		}
		obj, d := fields(a, ctx, "columns", "rows")
		diags = append(diags, d...)
		if !d.HasErrors() {
			set := &checks.Set{}
			cols, err := stringsOf(obj["columns"])
			if err != nil {
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid "+name, "columns: "+err.Error()))
			}
			set.Columns = cols
			if rv := obj["rows"]; rv.IsKnown() && !rv.IsNull() && rv.CanIterateElements() {
				for it := rv.ElementIterator(); it.Next(); {
					_, row := it.Element()
					g, err := toGo(row)
					if err != nil {
						diags = append(diags, hcleval.AttrError(a.Expr, "Invalid "+name, "rows: "+err.Error()))
						break
					}
					tuple, ok := g.([]any)
					if !ok {
						tuple = []any{g}
					}
					if len(tuple) != len(cols) {
						diags = append(diags, hcleval.AttrError(a.Expr, "Invalid "+name, fmt.Sprintf("a row has %d values for %d columns.", len(tuple), len(cols))))
						break
					}
					set.Rows = append(set.Rows, tuple)
				}
			} else if rv.IsKnown() {
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid "+name, "rows must be a list of tuples."))
			}
			if name == "expect_list" {
				cc.Expect.List = set
			} else {
				cc.Expect.Set = set
			}
		}
	}
	if a, ok := attrs["expect_map"]; ok {
		obj, d := fields(a, ctx, "key", "value", "want")
		diags = append(diags, d...)
		if !d.HasErrors() {
			m := &checks.Map{}
			m.Key, _ = goString(obj["key"])
			m.Value, _ = goString(obj["value"])
			want, err := objectToGo(obj["want"])
			if err != nil || m.Key == "" || m.Value == "" {
				diags = append(diags, hcleval.AttrError(a.Expr, "Invalid expect_map", "want { key = \"col\", value = \"col\", want = { k = v } }."))
			}
			m.Want = want
			cc.Expect.Map = m
		}
	}
	if a, ok := attrs["expect_ids"]; ok {
		obj, d := fields(a, ctx, "column", "want")
		diags = append(diags, d...)
		if !d.HasErrors() {
			ids := &checks.IDs{}
			ids.Column, _ = goString(obj["column"])
			if w, err := toGo(obj["want"]); err == nil && obj["want"].IsKnown() {
				set, err := checks.ParseIDSet(w)
				if err != nil {
					diags = append(diags, hcleval.AttrError(a.Expr, "Invalid expect_ids", "want: "+err.Error()+"."))
				}
				ids.Want = set
			}
			cc.Expect.IDs = ids
		}
	}
	if a, ok := attrs["expect_sum"]; ok {
		obj, d := fields(a, ctx, "column", "want")
		diags = append(diags, d...)
		if !d.HasErrors() {
			s := &checks.Sum{}
			s.Column, _ = goString(obj["column"])
			if w := obj["want"]; w.IsKnown() {
				if nv, err := convert.Convert(w, cty.Number); err == nil && !nv.IsNull() {
					s.Want = hcleval.Float(nv)
				} else {
					diags = append(diags, hcleval.AttrError(a.Expr, "Invalid expect_sum", "want must be a number."))
				}
			}
			cc.Expect.Sum = s
		}
	}
	return cc, diags
}

// caseKey labels a for_each element of a list: by its "key" (a sample
// truth's key attribute: the email, the order number) when it has one,
// else by its index.
func caseKey(v cty.Value, i int) string {
	if v.IsKnown() && !v.IsNull() && v.Type().IsObjectType() && v.Type().HasAttribute("key") {
		if k := v.GetAttr("key"); k.IsKnown() && !k.IsNull() {
			if s, ok := goString(k); ok && s != "" {
				return s
			}
		}
	}
	return fmt.Sprint(i)
}

// fields evaluates an object attribute and checks it has exactly names.
func fields(a *hcl.Attribute, ctx *hcl.EvalContext, names ...string) (map[string]cty.Value, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, hcl.Diagnostics{hcleval.AttrError(a.Expr, "Incorrect attribute value type", fmt.Sprintf("%s must be an object with %v.", a.Name, names))}
	}
	out := map[string]cty.Value{}
	if !v.IsKnown() {
		for _, n := range names {
			out[n] = cty.DynamicVal
		}
		return out, nil
	}
	m := v.AsValueMap()
	for k := range m {
		ok := false
		for _, n := range names {
			ok = ok || n == k
		}
		if !ok {
			diags = append(diags, hcleval.AttrError(a.Expr, "Unexpected field", fmt.Sprintf("%s has no field %q; its fields are %v.", a.Name, k, names)))
		}
	}
	for _, n := range names {
		fv, ok := m[n]
		if !ok {
			diags = append(diags, hcleval.AttrError(a.Expr, "Missing field", fmt.Sprintf("%s needs %q.", a.Name, n)))
			continue
		}
		out[n] = fv
	}
	return out, diags
}

func goString(v cty.Value) (string, bool) {
	if !v.IsKnown() || v.IsNull() {
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", false
	}
	return s.AsString(), true
}

func stringsOf(v cty.Value) ([]string, error) {
	if !v.IsKnown() {
		return nil, nil
	}
	l, err := convert.Convert(v, cty.List(cty.String))
	if err != nil || l.IsNull() {
		return nil, fmt.Errorf("want a list of column names")
	}
	var out []string
	for _, e := range l.AsValueSlice() {
		out = append(out, e.AsString())
	}
	return out, nil
}

func objectToGo(v cty.Value) (map[string]any, error) {
	if !v.IsKnown() {
		return nil, nil
	}
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, fmt.Errorf("want an object of column = value")
	}
	out := map[string]any{}
	for k, e := range v.AsValueMap() {
		g, err := toGo(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = g
	}
	return out, nil
}

// toGo converts a known cty value to string, float64, bool, nil, []any or
// map[string]any for the checks package. Unknown values become nil.
func toGo(v cty.Value) (any, error) {
	if !v.IsKnown() || v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Number:
		return hcleval.Float(v), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType():
		var out []any
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := toGo(e)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case ty.IsMapType() || ty.IsObjectType():
		return objectToGo(v)
	}
	return nil, fmt.Errorf("cannot compare a %s", ty.FriendlyName())
}
