package hcleval

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

func parse(t *testing.T, src string) hcl.Expression {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.Pos{Line: 3, Column: 5, Byte: 0})
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags.Error())
	}
	return expr
}

// ctx has one unknown value, var.u, as validation evaluates cells.
var ctx = &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"u": cty.DynamicVal})}}

// Each read: its value, the unknown case, and a mistake reported at the
// expression with the attribute's name.
func TestReads(t *testing.T) {
	read := map[string]func(hcl.Expression) (any, hcl.Diagnostics){
		"number": func(e hcl.Expression) (any, hcl.Diagnostics) { return Number(e, ctx, "n") },
		"int":    func(e hcl.Expression) (any, hcl.Diagnostics) { return Int(e, ctx, "n") },
		"string": func(e hcl.Expression) (any, hcl.Diagnostics) { return String(e, ctx, "s") },
		"bool":   func(e hcl.Expression) (any, hcl.Diagnostics) { return Bool(e, ctx, "b") },
		"list":   func(e hcl.Expression) (any, hcl.Diagnostics) { return StringList(e, ctx, "l") },
		"map":    func(e hcl.Expression) (any, hcl.Diagnostics) { return StringMap(e, ctx, "m") },
		// The Known reads give the value and whether it is known.
		"knownnumber": func(e hcl.Expression) (any, hcl.Diagnostics) {
			f, known, diags := KnownNumber(e, ctx, "n")
			return [2]any{f, known}, diags
		},
		"knownlist": func(e hcl.Expression) (any, hcl.Diagnostics) {
			l, known, diags := KnownStringList(e, ctx, "l")
			return [2]any{l, known}, diags
		},
	}
	tests := []struct {
		read, src string
		want      any
		err       string
	}{
		{"number", `1.5`, 1.5, ""},
		{"number", `"2"`, 2.0, ""},
		{"number", `var.u`, 0.0, ""},
		{"number", `"x"`, 0.0, "n must be a number."},
		{"int", `7`, int64(7), ""},
		{"int", `7.5`, int64(0), "n must be a whole number."},
		{"string", `"a"`, "a", ""},
		{"string", `3`, "3", ""},
		{"string", `var.u`, "", ""},
		{"string", `null`, "", "s must be a string."},
		{"bool", `true`, true, ""},
		{"bool", `var.u`, false, ""},
		{"bool", `"maybe"`, false, "b must be true or false."},
		{"list", `["a", "b"]`, []string{"a", "b"}, ""},
		{"list", `[var.u]`, []string(nil), ""},
		{"list", `["a", null]`, []string(nil), "l must not hold null."},
		{"list", `{ a = 1 }`, []string(nil), "l must be a list of strings."},
		{"map", `{ a = 1, b = true }`, map[string]string{"a": "1", "b": "true"}, ""},
		{"map", `null`, map[string]string{}, ""},
		{"map", `[1]`, map[string]string(nil), "m must be an object of strings, numbers or bools."},
		{"knownnumber", `0`, [2]any{0.0, true}, ""},
		{"knownnumber", `var.u`, [2]any{0.0, false}, ""},
		{"knownnumber", `"x"`, nil, "n must be a number."},
		{"knownlist", `[]`, [2]any{[]string(nil), true}, ""},
		{"knownlist", `[var.u]`, [2]any{[]string(nil), false}, ""},
		{"knownlist", `["a"]`, [2]any{[]string{"a"}, true}, ""},
		{"knownlist", `"a"`, nil, "l must be a list of strings."},
		{"map", `{ a = [1] }`, map[string]string(nil), `m: "a" must be a string, number or bool.`},
	}
	for _, tt := range tests {
		t.Run(tt.read+" "+tt.src, func(t *testing.T) {
			expr := parse(t, tt.src)
			got, diags := read[tt.read](expr)
			if tt.err == "" {
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
			} else {
				if !diags.HasErrors() || !strings.Contains(diags[0].Detail, tt.err) {
					t.Fatalf("diagnostics %v, want %q", diags, tt.err)
				}
				if s := diags[0].Subject; s == nil || s.Start.Line != 3 || s.Start.Column != 5 {
					t.Errorf("the diagnostic is at %v, want the expression (x.hcl:3,5)", s)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}
