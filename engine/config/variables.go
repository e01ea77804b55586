package config

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// EnvVarPrefix prefixes environment variables that set spec variables.
const EnvVarPrefix = "MENTAT_SPEC_VAR_"

// Variable is a `variable "name" {}` block.
type Variable struct {
	Name        string
	Description string
	Type        cty.Type // cty.DynamicPseudoType when not constrained
	Default     hcl.Expression
	Sensitive   bool
	Validations []*Validation
	DeclRange   hcl.Range

	Value  cty.Value // the value in force after evaluateTop
	Source string    // "default", "env", "-var", "-var-file FILE"
}

// SensitiveVariables returns the spec's sensitive variables by name: the
// one set that env.txt, the command line, diagnostics, a worker's
// assignment and a cluster manifest keep values of out of their text.
func (s *Spec) SensitiveVariables() map[string]*Variable {
	out := map[string]*Variable{}
	for _, v := range s.Variables {
		if v.Sensitive {
			out[v.Name] = v
		}
	}
	return out
}

// Validation is a variable's `validation {}` block.
type Validation struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true}, {Name: "error_message", Required: true},
	},
}

func decodeVariableBlock(b *hcl.Block) (*Variable, hcl.Diagnostics) {
	v := &Variable{Name: b.Labels[0], Type: cty.DynamicPseudoType, DeclRange: b.DefRange}
	diags := checkName("variable", v.Name, b.LabelRanges[0])
	content, d := b.Body.Content(variableSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["type"]; ok {
		ty, d := typeexpr.TypeConstraint(a.Expr)
		diags = append(diags, d...)
		if !d.HasErrors() {
			v.Type = ty
		}
	}
	if a, ok := content.Attributes["description"]; ok {
		diags = append(diags, decodeLiteral(a, cty.String, &v.Description)...)
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, decodeLiteral(a, cty.Bool, &v.Sensitive)...)
	}
	if a, ok := content.Attributes["default"]; ok {
		v.Default = a.Expr
	}
	for _, vb := range content.Blocks {
		c, d := vb.Body.Content(validationSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		val := &Validation{Condition: c.Attributes["condition"].Expr, ErrorMessage: c.Attributes["error_message"].Expr, DeclRange: vb.DefRange}
		for _, tr := range val.Condition.Variables() {
			if tr.RootName() != "var" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid validation condition",
					Detail: "A variable's validation condition may refer only to variables.", Subject: tr.SourceRange().Ptr()})
			}
		}
		v.Validations = append(v.Validations, val)
	}
	return v, diags
}

// decodeLiteral evaluates an attribute that may not refer to anything.
func decodeLiteral(a *hcl.Attribute, ty cty.Type, dst any) hcl.Diagnostics {
	val, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return diags
	}
	val, err := convert.Convert(val, ty)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Incorrect attribute value type",
			Detail: fmt.Sprintf("Attribute %q: %s.", a.Name, err), Subject: a.Expr.Range().Ptr()}}
	}
	switch p := dst.(type) {
	case *string:
		*p = val.AsString()
	case *bool:
		*p = val.True()
	}
	return nil
}

func checkName(kind, name string, rng hcl.Range) hcl.Diagnostics {
	if hclsyntax.ValidIdentifier(name) {
		return nil
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + kind + " name",
		Detail:  fmt.Sprintf("%q is not a valid name: use letters, digits, underscores and dashes, starting with a letter.", name),
		Subject: rng.Ptr()}}
}

// assignVariables sets every variable's value with Terraform's precedence:
// default, then MENTAT_SPEC_VAR_name, then -var-file and -var arguments in
// command-line order; then runs the validations.
func (s *Spec) assignVariables(args []VarArg) hcl.Diagnostics {
	var diags hcl.Diagnostics
	byName := map[string]*Variable{}
	for _, v := range s.Variables {
		byName[v.Name] = v
		v.Value, v.Source = cty.NullVal(v.Type), ""
		if v.Default != nil {
			val, d := v.Default.Value(s.baseContext(nil))
			diags = append(diags, d...)
			if !d.HasErrors() {
				diags = append(diags, v.set(val, "default", v.Default.Range().Ptr())...)
			}
		}
	}
	envNames := make([]string, 0)
	for k := range s.env {
		if strings.HasPrefix(k, EnvVarPrefix) {
			envNames = append(envNames, k)
		}
	}
	sort.Strings(envNames)
	for _, k := range envNames {
		name := strings.TrimPrefix(k, EnvVarPrefix)
		v, ok := byName[name]
		if !ok {
			continue // like Terraform: env vars for undeclared variables are ignored
		}
		val, d := parseVarString(v, s.env[k], "environment variable "+k)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, v.set(val, "env", nil)...)
		}
	}
	for _, a := range args {
		if a.File != "" {
			diags = append(diags, s.applyVarFile(a.File, byName)...)
			continue
		}
		v, ok := byName[a.Name]
		if !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable",
				Detail: fmt.Sprintf("-var sets %q, but the spec declares no variable of that name.", a.Name)})
			continue
		}
		val, d := parseVarString(v, a.Value, "-var "+a.Name)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, v.set(val, "-var", nil)...)
		}
	}
	for _, v := range s.Variables {
		if v.Source == "" && v.Default == nil { // an invalid default is reported above
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No value for required variable",
				Detail:  fmt.Sprintf("Variable %q has no default: set it with -var %s=..., a -var-file or %s%s.", v.Name, v.Name, EnvVarPrefix, v.Name),
				Subject: v.DeclRange.Ptr()})
		}
	}
	return diags
}

// validateVariables runs every variable's validation blocks.
func (s *Spec) validateVariables() hcl.Diagnostics {
	var diags hcl.Diagnostics
	ctx := s.baseContext(nil)
	for _, v := range s.Variables {
		for _, val := range v.Validations {
			diags = append(diags, val.check(v, ctx)...)
		}
	}
	return diags
}

func (v *Variable) set(val cty.Value, source string, subject *hcl.Range) hcl.Diagnostics {
	conv, err := convert.Convert(val, v.Type)
	if err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail:  fmt.Sprintf("Variable %q (from %s): %s.", v.Name, source, err),
			Subject: subject}}
	}
	v.Value, v.Source = conv, source
	return nil
}

// parseVarString reads a -var or environment value: a plain string for
// string variables, HCL expression syntax otherwise (as Terraform does).
func parseVarString(v *Variable, raw, what string) (cty.Value, hcl.Diagnostics) {
	if v.Type == cty.String {
		return cty.StringVal(raw), nil
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), what, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		if v.Type == cty.DynamicPseudoType {
			return cty.StringVal(raw), nil
		}
		return cty.NilVal, withVarHint(diags, v, raw, what)
	}
	val, diags := expr.Value(nil)
	if diags.HasErrors() && v.Type == cty.DynamicPseudoType {
		return cty.StringVal(raw), nil
	}
	return val, withVarHint(diags, v, raw, what)
}

// withVarHint adds to the errors of a list or map value written bare
// (-var backends=duckdb, where HCL reads duckdb as a variable) the same
// words written as HCL, quoted for the shell: -var 'backends=["duckdb"]'.
func withVarHint(diags hcl.Diagnostics, v *Variable, raw, what string) hcl.Diagnostics {
	if !diags.HasErrors() {
		return diags
	}
	words := strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == ' ' })
	for _, w := range words {
		if strings.ContainsAny(w, `"'[]{}=()`) {
			return diags // HCL written wrong, not bare words: its own message says what
		}
	}
	var value string
	switch {
	case len(words) == 0:
		return diags
	case v.Type.IsListType() || v.Type.IsSetType() || v.Type.IsTupleType():
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = strconv.Quote(w)
		}
		value = "[" + strings.Join(quoted, ",") + "]"
	case v.Type.IsMapType() || v.Type.IsObjectType():
		value = `{ key = "value" }`
	default:
		return diags
	}
	hint := fmt.Sprintf(" A -var value of a list, map or number variable is HCL, where a bare word is a variable: write -var '%s=%s' (quoted whole for the shell).", v.Name, value)
	if !strings.HasPrefix(what, "-var ") {
		hint = fmt.Sprintf(" The value of a list, map or number variable is HCL, where a bare word is a variable: set %s to '%s'.", strings.TrimPrefix(what, "environment variable "), value)
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		if c.Severity == hcl.DiagError {
			c.Detail = strings.TrimSpace(c.Detail + hint)
		}
		out[i] = &c
	}
	return out
}

func (s *Spec) applyVarFile(path string, byName map[string]*Variable) hcl.Diagnostics {
	if _, err := os.Stat(path); err != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read -var-file", Detail: err.Error()}}
	}
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(path, ".json") {
		f, diags = s.Parser.ParseJSONFile(path)
	} else {
		f, diags = s.Parser.ParseHCLFile(path)
	}
	if f != nil {
		s.recordInput(path, f.Bytes)
	}
	if diags.HasErrors() {
		return diags
	}
	attrs, d := f.Body.JustAttributes()
	diags = append(diags, d...)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := attrs[n]
		v, ok := byName[n]
		if !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Undeclared variable",
				Detail: fmt.Sprintf("The var file sets %q, but the spec declares no variable of that name.", n), Subject: a.NameRange.Ptr()})
			continue
		}
		val, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, v.set(val, "-var-file "+path, a.Expr.Range().Ptr())...)
		}
	}
	return diags
}

func (val *Validation) check(v *Variable, ctx *hcl.EvalContext) hcl.Diagnostics {
	res, diags := val.Condition.Value(ctx)
	if diags.HasErrors() {
		return diags
	}
	res, err := convert.Convert(res, cty.Bool)
	if err != nil || res.IsNull() {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid validation condition",
			Detail: "The condition must be true or false.", Subject: val.Condition.Range().Ptr()}}
	}
	if !res.IsKnown() || res.True() {
		return nil
	}
	msg := "the value is not valid"
	if m, d := val.ErrorMessage.Value(ctx); !d.HasErrors() {
		if m, err := convert.Convert(m, cty.String); err == nil && m.IsKnown() && !m.IsNull() {
			msg = m.AsString()
		}
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
		Detail:  fmt.Sprintf("Variable %q (from %s): %s", v.Name, v.Source, msg),
		Subject: val.Condition.Range().Ptr()}}
}

// Local is one attribute of a `locals {}` block.
type Local struct {
	Name  string
	Expr  hcl.Expression
	Value cty.Value
	// PerScale: the expression reads scale.* (or a local that does), so
	// its value is the scale's: unknown outside a scale, and evaluated
	// once per declared scale (Spec.scaleLocals).
	PerScale bool
}

func decodeLocalsBlock(b *hcl.Block) ([]*Local, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	ls := make([]*Local, 0, len(attrs))
	for _, n := range names {
		ls = append(ls, &Local{Name: n, Expr: attrs[n].Expr})
	}
	return ls, diags
}

// evaluateLocals evaluates locals in dependency order (from each
// expression's references to local.*), reporting cycles.
func (s *Spec) evaluateLocals() hcl.Diagnostics {
	byName := map[string]*Local{}
	for _, l := range s.Locals {
		byName[l.Name] = l
	}
	const (
		unvisited = iota
		visiting
		done
		failed // in or behind a cycle: not evaluated, and not reported again
	)
	state := map[string]int{}
	var diags hcl.Diagnostics
	var visit func(l *Local, path []string) bool
	visit = func(l *Local, path []string) bool {
		switch state[l.Name] {
		case done:
			return true
		case failed:
			return false
		case visiting:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cycle in locals",
				Detail:  fmt.Sprintf("local.%s depends on itself: %s.", l.Name, strings.Join(append(path, l.Name), " -> ")),
				Subject: l.Expr.Range().Ptr()})
			return false
		}
		state[l.Name] = visiting
		ok := true
		for _, tr := range l.Expr.Variables() {
			if tr.RootName() == "scale" {
				l.PerScale = true
			}
			if tr.RootName() != "local" || len(tr) < 2 {
				continue
			}
			attr, isAttr := tr[1].(hcl.TraverseAttr)
			if !isAttr {
				continue
			}
			dep, exists := byName[attr.Name]
			if !exists {
				continue // reported as an unsupported attribute when evaluated
			}
			if !visit(dep, append(path, l.Name)) {
				ok = false
				break
			}
			l.PerScale = l.PerScale || dep.PerScale
		}
		if ok {
			var extra map[string]cty.Value
			if l.PerScale {
				extra = map[string]cty.Value{"scale": cty.DynamicVal} // known per scale only
			}
			val, d := l.Expr.Value(s.baseContext(extra))
			diags = append(diags, d...)
			if d.HasErrors() {
				val = cty.DynamicVal // dependents evaluate to unknown instead of piling up errors
			}
			l.Value = val
			state[l.Name] = done
			s.localOrder = append(s.localOrder, l)
		} else {
			state[l.Name] = failed
		}
		return ok
	}
	for _, l := range s.Locals {
		visit(l, nil)
	}
	return diags
}
