package checkeval

import (
	"encoding/json"
	"fmt"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/zclconf/go-cty/cty"
)

// ParamSpec converts a query or check parameter's value (a constant, a
// pick()/picks()/mark() call or uniform(min, max)) to its typed form.
func ParamSpec(v cty.Value) (params.Spec, error) {
	if pg, ok := hclfunc.AsParamGen(v); ok {
		return pg, nil
	}
	if g, ok := hclfunc.AsGenerator(v); ok {
		switch {
		case g.Kind == datagen.GenUniformInt:
			return params.Spec{Kind: params.Range, Min: g.Min, Max: g.Max}, nil
		case datagen.IsKeyChooser(g.Kind):
			return params.Spec{}, fmt.Errorf("%s() is a key chooser: draw an entity with pick(%s) or its value with pick(%s, attr)", g.Kind, params.ChooserString(g), params.ChooserString(g))
		}
		return params.Spec{}, fmt.Errorf("of the value generators only uniform(min, max) is a parameter, not %s()", g.Kind)
	}
	c, err := ParamConst(v)
	if err != nil {
		return params.Spec{}, err
	}
	return params.Spec{Kind: params.Const, Value: c}, nil
}

// ParamConst converts a constant parameter value to int64, float64, string
// or bool; lists and objects are bound as JSON text.
func ParamConst(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			i, acc := bf.Int64()
			if acc == 0 {
				return i, nil
			}
		}
		f, _ := bf.Float64()
		return f, nil
	case ty.IsListType() || ty.IsTupleType() || ty.IsSetType() || ty.IsMapType() || ty.IsObjectType():
		g, err := toGo(v)
		if err != nil {
			return nil, err
		}
		return jsonText(g)
	}
	return nil, fmt.Errorf("a parameter is a string, number, bool, list or a pick()/picks()/mark() call, not a %s", ty.FriendlyName())
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encoding a list parameter as JSON: %w", err)
	}
	return string(b), nil
}
