// Package hclfunc is the spec language's own functions: the value
// generators a dataset's attributes draw from (seq, uniform, zipf, ...),
// the parameter generators of queries (pick, picks, mark), the time
// functions (epoch_ms, timeadd, ...), range, alltrue and anytrue. A
// generator's value travels through HCL in a capsule (GeneratorType,
// ParamType) that AsGenerator and AsParamGen open.
package hclfunc

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// Functions returns the spec language's own functions by name.
func Functions() map[string]function.Function {
	fns := map[string]function.Function{"range": rangeFunc, "alltrue": boolFoldFunc(true), "anytrue": boolFoldFunc(false)}
	for _, table := range []map[string]function.Function{timeFunctions, generatorFunctions, paramFunctions} {
		for name, f := range table {
			fns[name] = f
		}
	}
	// Read at each call: a key chooser registered after this package's
	// initialisation is a function too.
	for _, c := range datagen.Choosers() {
		fns[string(c.Kind)] = chooserFunc(c)
	}
	return fns
}

// GeneratorType is the cty type of a value generator (seq(), zipf(), ...).
var GeneratorType = cty.Capsule("generator", reflect.TypeOf(datagen.Generator{}))

// ParamType is the cty type of a query parameter generator (pick(), ...).
var ParamType = cty.Capsule("parameter generator", reflect.TypeOf(params.Spec{}))

func genVal(g datagen.Generator) cty.Value { return cty.CapsuleVal(GeneratorType, &g) }

func paramVal(p params.Spec) cty.Value { return cty.CapsuleVal(ParamType, &p) }

// AsGenerator returns the generator a value holds.
func AsGenerator(v cty.Value) (datagen.Generator, bool) {
	if v.IsNull() || !v.IsKnown() || !v.Type().Equals(GeneratorType) {
		return datagen.Generator{}, false
	}
	return *v.EncapsulatedValue().(*datagen.Generator), true
}

// AsParamGen returns the parameter generator a value holds.
func AsParamGen(v cty.Value) (params.Spec, bool) {
	if v.IsNull() || !v.IsKnown() || !v.Type().Equals(ParamType) {
		return params.Spec{}, false
	}
	return *v.EncapsulatedValue().(*params.Spec), true
}

func intArg(v cty.Value, what string) (int64, error) {
	f := hcleval.Float(v)
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s must be a whole number, got %v", what, f)
	}
	return int64(f), nil
}

func genFunc(desc string, params []function.Parameter, impl func(args []cty.Value) (datagen.Generator, error)) function.Function {
	return function.New(&function.Spec{
		Description: desc,
		Params:      params,
		Type:        function.StaticReturnType(GeneratorType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			g, err := impl(args)
			if err != nil {
				return cty.NilVal, err
			}
			return genVal(g), nil
		},
	})
}

func p(name string, ty cty.Type) function.Parameter { return function.Parameter{Name: name, Type: ty} }

// parseInstant reads an RFC 3339 time or a number of epoch milliseconds.
func parseInstant(v cty.Value) (int64, error) {
	if v.Type() == cty.Number {
		return intArg(v, "instant")
	}
	t, err := time.Parse(time.RFC3339, v.AsString())
	if err != nil {
		return 0, fmt.Errorf("instant %q: want RFC 3339 like 2024-01-02T15:04:05Z", v.AsString())
	}
	return t.UnixMilli(), nil
}

var generatorFunctions = map[string]function.Function{
	"seq": genFunc("Values from a format with one %d replaced by the entity's id; %06d pads it with zeros to 6 digits.",
		[]function.Parameter{p("format", cty.String)}, func(a []cty.Value) (datagen.Generator, error) {
			f := a[0].AsString()
			if !seqFormat.MatchString(f) {
				return datagen.Generator{}, fmt.Errorf("format %q must hold exactly one %%d (or %%0Nd, zero-padded to N digits) and no other %%", f)
			}
			return datagen.Generator{Kind: datagen.GenSeq, Format: f}, nil
		}),
	"uniform": genFunc("A whole number uniform in [min, max].",
		[]function.Parameter{p("min", cty.Number), p("max", cty.Number)}, func(a []cty.Value) (datagen.Generator, error) {
			lo, err := intArg(a[0], "min")
			if err != nil {
				return datagen.Generator{}, err
			}
			hi, err := intArg(a[1], "max")
			if err != nil {
				return datagen.Generator{}, err
			}
			if hi < lo {
				return datagen.Generator{}, fmt.Errorf("max (%d) is below min (%d)", hi, lo)
			}
			return datagen.Generator{Kind: datagen.GenUniformInt, Min: lo, Max: hi}, nil
		}),
	"uniform_float": genFunc("A number uniform in [min, max).",
		[]function.Parameter{p("min", cty.Number), p("max", cty.Number)}, func(a []cty.Value) (datagen.Generator, error) {
			lo, hi := hcleval.Float(a[0]), hcleval.Float(a[1])
			if hi <= lo {
				return datagen.Generator{}, fmt.Errorf("max (%v) must be above min (%v)", hi, lo)
			}
			return datagen.Generator{Kind: datagen.GenUniformFloat, FMin: lo, FMax: hi}, nil
		}),
	"weighted": genFunc("One of the object's keys, chosen with the weights its values give.",
		[]function.Parameter{p("choices", cty.Map(cty.Number))}, func(a []cty.Value) (datagen.Generator, error) {
			m := a[0].AsValueMap()
			if len(m) == 0 {
				return datagen.Generator{}, fmt.Errorf("weighted needs at least one choice")
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			g := datagen.Generator{Kind: datagen.GenWeighted}
			for _, k := range keys {
				w := hcleval.Float(m[k])
				if w <= 0 {
					return datagen.Generator{}, fmt.Errorf("weight of %q must be positive, got %v", k, w)
				}
				g.Choices, g.Weights = append(g.Choices, k), append(g.Weights, w)
			}
			return g, nil
		}),
	"random_bytes": genFunc("A string of exactly length random printable characters (the 64 of base64url, so no loader escapes them), a fresh draw per entity: YCSB's field filler, which does not compress like seq() text.",
		[]function.Parameter{p("length", cty.Number)}, func(a []cty.Value) (datagen.Generator, error) {
			n, err := intArg(a[0], "length")
			if err != nil {
				return datagen.Generator{}, err
			}
			if n < 1 || n > maxRandomBytes {
				return datagen.Generator{}, fmt.Errorf("length must be in [1, %d], got %d", maxRandomBytes, n)
			}
			return datagen.Generator{Kind: datagen.GenRandomBytes, Length: int(n)}, nil
		}),
	"sample": genFunc("Between min and max distinct references to uniformly chosen entities (for many = true).",
		[]function.Parameter{p("entity", cty.String), p("min", cty.Number), p("max", cty.Number)}, func(a []cty.Value) (datagen.Generator, error) {
			lo, err := intArg(a[1], "min")
			if err != nil {
				return datagen.Generator{}, err
			}
			hi, err := intArg(a[2], "max")
			if err != nil {
				return datagen.Generator{}, err
			}
			if lo < 0 || hi < lo {
				return datagen.Generator{}, fmt.Errorf("need 0 <= min <= max, got %d and %d", lo, hi)
			}
			return datagen.Generator{Kind: datagen.GenSample, Target: a[0].AsString(), MinN: int(lo), MaxN: int(hi)}, nil
		}),
	"instant": genFunc("An instant uniform between two times (RFC 3339 or epoch milliseconds).",
		[]function.Parameter{p("from", cty.DynamicPseudoType), p("to", cty.DynamicPseudoType)}, func(a []cty.Value) (datagen.Generator, error) {
			for _, v := range a {
				if v.Type() != cty.String && v.Type() != cty.Number {
					return datagen.Generator{}, fmt.Errorf("instant bounds must be RFC 3339 strings or epoch milliseconds")
				}
			}
			lo, err := parseInstant(a[0])
			if err != nil {
				return datagen.Generator{}, err
			}
			hi, err := parseInstant(a[1])
			if err != nil {
				return datagen.Generator{}, err
			}
			if hi < lo {
				return datagen.Generator{}, fmt.Errorf("the end is before the start")
			}
			return datagen.Generator{Kind: datagen.GenInstant, Min: lo, Max: hi}, nil
		}),
	"const": genFunc("The same value for every entity.",
		[]function.Parameter{p("value", cty.DynamicPseudoType)}, func(a []cty.Value) (datagen.Generator, error) {
			v := a[0]
			switch v.Type() {
			case cty.String:
				return datagen.Generator{Kind: datagen.GenConst, Const: v.AsString()}, nil
			case cty.Number:
				return datagen.Generator{Kind: datagen.GenConst, Const: v.AsBigFloat().Text('f', -1)}, nil
			case cty.Bool:
				return datagen.Generator{Kind: datagen.GenConst, Const: fmt.Sprint(v.True())}, nil
			}
			return datagen.Generator{}, fmt.Errorf("const takes a string, number or bool")
		}),
	"parent": genFunc("The entity's parent (an entity with parent and per_parent set).",
		nil, func([]cty.Value) (datagen.Generator, error) {
			return datagen.Generator{Kind: datagen.GenParent}, nil
		}),
	"ordinal": genFunc("The entity's position among its parent's children, from 1.",
		nil, func([]cty.Value) (datagen.Generator, error) {
			return datagen.Generator{Kind: datagen.GenOrdinal}, nil
		}),
	"offset": genFunc("Another attribute's value of the same entity plus a whole number uniform in [min, max] (milliseconds or durations such as \"2h\" for instants).",
		[]function.Parameter{p("source", cty.String), p("min", cty.DynamicPseudoType), p("max", cty.DynamicPseudoType)}, func(a []cty.Value) (datagen.Generator, error) {
			lo, err := DurationMS(a[1])
			if err != nil {
				return datagen.Generator{}, err
			}
			hi, err := DurationMS(a[2])
			if err != nil {
				return datagen.Generator{}, err
			}
			if hi < lo {
				return datagen.Generator{}, fmt.Errorf("max (%d) is below min (%d)", hi, lo)
			}
			return datagen.Generator{Kind: datagen.GenOffset, Source: a[0].AsString(), Min: lo, Max: hi}, nil
		}),
	"chance": genFunc("true with probability p, else false.",
		[]function.Parameter{p("p", cty.Number)}, func(a []cty.Value) (datagen.Generator, error) {
			pr := hcleval.Float(a[0])
			if pr < 0 || pr > 1 {
				return datagen.Generator{}, fmt.Errorf("p must be in [0, 1], got %v", pr)
			}
			return datagen.Generator{Kind: datagen.GenChance, P: pr}, nil
		}),
}

// maxRandomBytes is datagen's bound on a random_bytes value (1 MiB).
const maxRandomBytes = 1 << 20

// chooserFunc is the HCL function of a key chooser of datagen's table:
// an entity, then the chooser's numbers, trailing ones with a default
// optional.
func chooserFunc(c datagen.Chooser) function.Function {
	required := 0
	for _, cp := range c.Params {
		if !cp.HasDefault {
			required++
		}
	}
	params := []function.Parameter{p("entity", cty.String)}
	for _, cp := range c.Params[:required] {
		params = append(params, p(cp.Name, cty.Number))
	}
	spec := &function.Spec{Description: c.Doc, Params: params, Type: function.StaticReturnType(GeneratorType)}
	if required < len(c.Params) {
		spec.VarParam = &function.Parameter{Name: c.Params[required].Name, Type: cty.Number}
	}
	spec.Impl = func(a []cty.Value, _ cty.Type) (cty.Value, error) {
		if len(a)-1 > len(c.Params) {
			return cty.NilVal, fmt.Errorf("%s takes an entity and at most %s", c.Kind, numbersOf(c.Params))
		}
		args := make([]float64, len(c.Params))
		for i, cp := range c.Params {
			args[i] = cp.Default
			if i+1 < len(a) {
				args[i] = hcleval.Float(a[i+1])
			}
			if cp.Valid != nil && !cp.Valid(args[i]) {
				return cty.NilVal, fmt.Errorf("%s %s, got %v", cp.Name, cp.Want, args[i])
			}
		}
		return genVal(c.Generator(a[0].AsString(), args)), nil
	}
	return function.New(spec)
}

// numbersOf words a chooser's parameters: "one exponent", "the numbers a and b".
func numbersOf(ps []datagen.ChooserParam) string {
	if len(ps) == 1 {
		return "one " + ps[0].Name
	}
	names := make([]string, len(ps))
	for i, cp := range ps {
		names[i] = cp.Name
	}
	return "the numbers " + strings.Join(names, ", ")
}

// seqFormat is a seq format: one %d or %0Nd; %% is a literal percent.
var seqFormat = regexp.MustCompile(`^(?:[^%]|%%)*%(?:0[1-9][0-9]?)?d(?:[^%]|%%)*$`)

// DurationMS reads milliseconds: a whole number, or a duration such as
// "90s", "36h" or "2d" (d: 24 hours).
func DurationMS(v cty.Value) (int64, error) {
	if !v.IsKnown() || v.IsNull() {
		return 0, fmt.Errorf("a duration must be known and not null")
	}
	switch v.Type() {
	case cty.Number:
		return intArg(v, "milliseconds")
	case cty.String:
		s := v.AsString()
		if days, ok := strings.CutSuffix(s, "d"); ok {
			n, err := strconv.ParseFloat(days, 64)
			if err != nil {
				return 0, fmt.Errorf("duration %q: want a number of days like \"2d\"", s)
			}
			return int64(n * 24 * 3600 * 1000), nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("duration %q: want milliseconds or a duration like \"90m\", \"36h\" or \"2d\"", s)
		}
		return d.Milliseconds(), nil
	}
	return 0, fmt.Errorf("a duration is milliseconds or a string such as \"36h\", not %s", v.Type().FriendlyName())
}

// timeFunctions let an instant be written once, as RFC 3339, and used
// both in truth filters and as a query parameter in epoch milliseconds.
var timeFunctions = map[string]function.Function{
	"epoch_ms": function.New(&function.Spec{
		Description: "An instant (RFC 3339 text, or epoch milliseconds) as epoch milliseconds, the way instants are stored.",
		Params:      []function.Parameter{p("time", cty.DynamicPseudoType)},
		Type:        function.StaticReturnType(cty.Number),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			if a[0].Type() != cty.String && a[0].Type() != cty.Number {
				return cty.NilVal, fmt.Errorf("want RFC 3339 text or epoch milliseconds")
			}
			ms, err := parseInstant(a[0])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.NumberIntVal(ms), nil
		},
	}),
	"rfc3339": function.New(&function.Spec{
		Description: "Epoch milliseconds as RFC 3339 text in UTC.",
		Params:      []function.Parameter{p("epoch_ms", cty.Number)},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			ms, err := intArg(a[0], "epoch_ms")
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)), nil
		},
	}),
	"duration_ms": function.New(&function.Spec{
		Description: "A duration (\"90m\", \"36h\", \"2d\") in milliseconds.",
		Params:      []function.Parameter{p("duration", cty.String)},
		Type:        function.StaticReturnType(cty.Number),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			ms, err := DurationMS(a[0])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.NumberIntVal(ms), nil
		},
	}),
	"timeadd": function.New(&function.Spec{
		Description: "An instant (RFC 3339) plus a duration (\"36h\", \"-2d\"), as RFC 3339 text.",
		Params:      []function.Parameter{p("time", cty.String), p("duration", cty.String)},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			ms, err := parseInstant(a[0])
			if err != nil {
				return cty.NilVal, err
			}
			d, err := DurationMS(a[1])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(time.UnixMilli(ms + d).UTC().Format(time.RFC3339Nano)), nil
		},
	}),
}

var paramFunctions = map[string]function.Function{
	"pick": function.New(&function.Spec{
		Description: "Each call, a random existing entity of a kind (uniformly), or one drawn by a key chooser (ref, zipf, scrambled_zipf, latest, hotspot): its id, or the value of attr.",
		Params:      []function.Parameter{p("entity", cty.DynamicPseudoType)},
		VarParam:    &function.Parameter{Name: "attr", Type: cty.String},
		Type:        function.StaticReturnType(ParamType),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(a) > 2 {
				return cty.NilVal, fmt.Errorf("pick takes an entity and at most one attribute")
			}
			pg, err := pickOf(a[0])
			if err != nil {
				return cty.NilVal, err
			}
			if len(a) == 2 {
				pg.Attr = a[1].AsString()
			}
			return paramVal(pg), nil
		},
	}),
	"picks": function.New(&function.Spec{
		Description: "Each call, n distinct random entities' attr values, as a JSON array.",
		Params:      []function.Parameter{p("entity", cty.String), p("attr", cty.String), p("n", cty.Number)},
		Type:        function.StaticReturnType(ParamType),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			n, err := intArg(a[2], "n")
			if err != nil {
				return cty.NilVal, err
			}
			if n < 1 {
				return cty.NilVal, fmt.Errorf("n must be at least 1, got %d", n)
			}
			return paramVal(params.Spec{Kind: params.Picks, Entity: a[0].AsString(), Attr: a[1].AsString(), N: int(n)}), nil
		},
	}),
	"mark": function.New(&function.Spec{
		Description: "The transaction id of a dataset mark.",
		Params:      []function.Parameter{p("name", cty.String)},
		Type:        function.StaticReturnType(ParamType),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			return paramVal(params.Spec{Kind: params.Mark, Mark: a[0].AsString()}), nil
		},
	}),
}

// pickOf reads pick's first argument: an entity kind, drawn uniformly
// as ever, or a key chooser generator, whose kind it draws.
func pickOf(v cty.Value) (params.Spec, error) {
	if g, ok := AsGenerator(v); ok {
		if !datagen.IsKeyChooser(g.Kind) {
			return params.Spec{}, fmt.Errorf("pick takes an entity kind or a key chooser (%s), not %s()", datagen.ChooserNames(), g.Kind)
		}
		return params.Spec{Kind: params.Pick, Entity: g.Target, Chooser: &g}, nil
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return params.Spec{}, fmt.Errorf("pick takes an entity kind (a string) or a key chooser such as zipf(\"user\", 0.99), not %s", v.Type().FriendlyName())
	}
	return params.Spec{Kind: params.Pick, Entity: s.AsString()}, nil
}

// boolFoldFunc is Terraform's alltrue (all = true) or anytrue.
func boolFoldFunc(all bool) function.Function {
	return function.New(&function.Spec{
		Description: "Whether all (alltrue) or any (anytrue) elements of a list are true.",
		Params:      []function.Parameter{p("list", cty.List(cty.Bool))},
		Type:        function.StaticReturnType(cty.Bool),
		Impl: func(a []cty.Value, _ cty.Type) (cty.Value, error) {
			if !a[0].IsWhollyKnown() {
				return cty.UnknownVal(cty.Bool), nil
			}
			for _, v := range a[0].AsValueSlice() {
				if v.IsNull() {
					return cty.NilVal, fmt.Errorf("the list holds null")
				}
				if v.True() != all {
					return cty.BoolVal(!all), nil
				}
			}
			return cty.BoolVal(all), nil
		},
	})
}

// maxRange bounds range(): HCL's own stops at 1,024 values, too few for a
// spec's lists (a check's expected rows, a sample's ids); a million keeps
// a typo from taking the machine's memory.
const maxRange = 1_000_000

// rangeFunc is HCL's range(end), range(start, end), range(start, end,
// step) with maxRange values at most.
var rangeFunc = function.New(&function.Spec{
	Description: fmt.Sprintf("A list of numbers from start (default 0) up to but not including end, by step (default 1, or -1 when end is below start); at most %d values.", maxRange),
	VarParam:    &function.Parameter{Name: "params", Type: cty.Number},
	Type:        function.StaticReturnType(cty.List(cty.Number)),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var start, end, step float64
		switch len(args) {
		case 1:
			end = hcleval.Float(args[0])
			step = 1
			if end < 0 {
				step = -1
			}
		case 2:
			start, end = hcleval.Float(args[0]), hcleval.Float(args[1])
			step = 1
			if end < start {
				step = -1
			}
		case 3:
			start, end, step = hcleval.Float(args[0]), hcleval.Float(args[1]), hcleval.Float(args[2])
		default:
			return cty.NilVal, fmt.Errorf("range takes one, two or three arguments")
		}
		switch {
		case step == 0:
			return cty.NilVal, function.NewArgErrorf(2, "step must not be zero")
		case step < 0 && end > start:
			return cty.NilVal, function.NewArgErrorf(1, "end must be less than start when step is negative")
		case step > 0 && end < start:
			return cty.NilVal, function.NewArgErrorf(1, "end must be greater than start when step is positive")
		}
		if n := math.Ceil((end - start) / step); n > maxRange {
			return cty.NilVal, fmt.Errorf("range would make %.0f values, more than %d: use a smaller span or a larger step", n, maxRange)
		}
		var vals []cty.Value
		for i := 0; ; i++ {
			v := start + float64(i)*step
			if step > 0 && v >= end || step < 0 && v <= end {
				break
			}
			vals = append(vals, cty.NumberFloatVal(v))
		}
		if len(vals) == 0 {
			return cty.ListValEmpty(cty.Number), nil
		}
		return cty.ListVal(vals), nil
	},
})
