package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// functions are what a spec's expressions may call: cty's standard library
// as Terraform has it, file(), env() and spec_home() of this spec, and
// the spec language's own (engine/hclfunc).
func (s *Spec) functions() map[string]function.Function {
	fns := map[string]function.Function{
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"max": stdlib.MaxFunc, "min": stdlib.MinFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		"parseint": stdlib.ParseIntFunc, "log": stdlib.LogFunc,
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc, "upper": stdlib.UpperFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "replace": stdlib.ReplaceFunc,
		"split": stdlib.SplitFunc, "strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc,
		"title": stdlib.TitleFunc, "trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc,
		"trimsuffix": stdlib.TrimSuffixFunc, "trimspace": stdlib.TrimSpaceFunc,
		"chunklist": stdlib.ChunklistFunc,
		"coalesce":  stdlib.CoalesceFunc, "coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "index": stdlib.IndexFunc,
		"keys": stdlib.KeysFunc, "length": stdlib.LengthFunc, "lookup": stdlib.LookupFunc,
		"merge": stdlib.MergeFunc, "reverse": stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc, "setproduct": stdlib.SetProductFunc,
		"setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc,
		"sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "csvdecode": stdlib.CSVDecodeFunc,
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)), "toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
		"file": s.fileFunc(), "env": s.envFunc(), "spec_home": s.specHomeFunc(),
	}
	for name, f := range hclfunc.Functions() {
		fns[name] = f
	}
	for name, f := range fns {
		if name != "try" && name != "can" { // they take expressions, not values
			fns[name] = derived(f)
		}
	}
	return fns
}

// fileFunc reads a file relative to the spec's directory.
func (s *Spec) fileFunc() function.Function { return s.fileFuncIn("") }

// fileFuncIn reads a file relative to dir (the spec's directory when
// empty): expressions of a spec file read files next to that file.
func (s *Spec) fileFuncIn(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a file, relative to the directory of the spec file that calls it.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if !filepath.IsAbs(p) {
				base := dir
				if base == "" {
					base = s.Dir
				}
				p = filepath.Join(base, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return cty.NilVal, fmt.Errorf("cannot read %s: %w", p, unwrapPathErr(err))
			}
			s.recordInput(p, b)
			return cty.StringVal(string(b)), nil
		},
	})
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// envFunc reads an environment variable, or a default when it is unset.
func (s *Spec) envFunc() function.Function {
	return function.New(&function.Spec{
		Description: "Reads an environment variable; the optional second argument is the value when it is unset.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "default", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if v, ok := s.env[args[0].AsString()]; ok {
				return cty.StringVal(v), nil
			}
			if len(args) > 1 {
				return args[1], nil
			}
			return cty.StringVal(""), nil
		},
	})
}
