package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/zclconf/go-cty/cty"
)

func varsPath(name string) string { return filepath.Join("testdata", "variables", name) }

func setVar(name, value string) config.VarArg { return config.VarArg{Name: name, Value: value} }

func varFile(name string) config.VarArg { return config.VarArg{File: varsPath(name)} }

func variable(t *testing.T, spec *config.Spec, name string) *config.Variable {
	t.Helper()
	for _, v := range spec.Variables {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variable %q", name)
	return nil
}

type varWant struct {
	value  cty.Value
	source string
}

func strList(s ...string) cty.Value {
	var l []cty.Value
	for _, x := range s {
		l = append(l, cty.StringVal(x))
	}
	return cty.ListVal(l)
}

func TestVariablePrecedence(t *testing.T) {
	fileA := "-var-file " + varsPath("a.vars.hcl")
	fileB := "-var-file " + varsPath("b.vars.json")
	tests := []struct {
		name string
		env  []string
		vars []config.VarArg
		want map[string]varWant
	}{
		{
			name: "defaults",
			want: map[string]varWant{
				"n":      {cty.NumberIntVal(1), "default"},
				"s":      {cty.StringVal("default"), "default"},
				"l":      {strList("a"), "default"},
				"b":      {cty.False, "default"},
				"any":    {cty.StringVal("any"), "default"},
				"secret": {cty.StringVal("fallback"), "default"},
			},
		},
		{
			name: "env beats default",
			env:  []string{"MENTAT_SPEC_VAR_n=2", "MENTAT_SPEC_VAR_s=hello world", `MENTAT_SPEC_VAR_l=["e1", "e2"]`},
			want: map[string]varWant{
				"n": {cty.NumberIntVal(2), "env"},
				"s": {cty.StringVal("hello world"), "env"},
				"l": {strList("e1", "e2"), "env"},
				"b": {cty.False, "default"},
			},
		},
		{
			name: "var-file beats env",
			env:  []string{"MENTAT_SPEC_VAR_n=2"},
			vars: []config.VarArg{varFile("a.vars.hcl")},
			want: map[string]varWant{
				"n": {cty.NumberIntVal(10), fileA},
				"s": {cty.StringVal("from a"), fileA},
			},
		},
		{
			name: "-var after var-file beats it",
			env:  []string{"MENTAT_SPEC_VAR_n=2"},
			vars: []config.VarArg{varFile("a.vars.hcl"), setVar("n", "30")},
			want: map[string]varWant{
				"n": {cty.NumberIntVal(30), "-var"},
				"s": {cty.StringVal("from a"), fileA},
			},
		},
		{
			name: "var-file after -var beats it: command-line order",
			vars: []config.VarArg{setVar("n", "30"), varFile("a.vars.hcl")},
			want: map[string]varWant{"n": {cty.NumberIntVal(10), fileA}},
		},
		{
			name: "later var-file wins, JSON var-file",
			vars: []config.VarArg{varFile("a.vars.hcl"), varFile("b.vars.json")},
			want: map[string]varWant{
				"n": {cty.NumberIntVal(20), fileB},
				"s": {cty.StringVal("from a"), fileA},
				"l": {strList("b1", "b2"), fileB},
			},
		},
		{
			name: "repeated -var: last wins",
			vars: []config.VarArg{setVar("n", "4"), setVar("n", "5")},
			want: map[string]varWant{"n": {cty.NumberIntVal(5), "-var"}},
		},
		{
			name: "-var of a list and a bool is HCL",
			vars: []config.VarArg{setVar("l", `["x", "y"]`), setVar("b", "true")},
			want: map[string]varWant{
				"l": {strList("x", "y"), "-var"},
				"b": {cty.True, "-var"},
			},
		},
		{
			name: "-var of a number expression",
			vars: []config.VarArg{setVar("n", "2 * 21")},
			want: map[string]varWant{"n": {cty.NumberIntVal(42), "-var"}},
		},
		{
			name: "a string variable takes the raw text",
			vars: []config.VarArg{setVar("s", `["not", "a", "list"]`), setVar("secret", "")},
			want: map[string]varWant{
				"s":      {cty.StringVal(`["not", "a", "list"]`), "-var"},
				"secret": {cty.StringVal(""), "-var"},
			},
		},
		{
			name: "an untyped variable parses HCL, else takes the raw text",
			vars: []config.VarArg{setVar("any", "3")},
			want: map[string]varWant{"any": {cty.NumberIntVal(3), "-var"}},
		},
		{
			name: "an untyped variable: not an expression",
			vars: []config.VarArg{setVar("any", "hello world")},
			want: map[string]varWant{"any": {cty.StringVal("hello world"), "-var"}},
		},
		{
			name: "an untyped variable: a bare word",
			vars: []config.VarArg{setVar("any", "hello")},
			want: map[string]varWant{"any": {cty.StringVal("hello"), "-var"}},
		},
		{
			name: "env() in a default reads Options.Env",
			env:  []string{"SECRET_FROM_ENV=s3cret"},
			want: map[string]varWant{"secret": {cty.StringVal("s3cret"), "default"}},
		},
		{
			name: "env for an undeclared variable is ignored",
			env:  []string{"MENTAT_SPEC_VAR_nope=1", "MENTAT_SPEC_VARn=3"},
			want: map[string]varWant{"n": {cty.NumberIntVal(1), "default"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if env == nil {
				env = []string{}
			}
			spec, diags := config.Load([]string{varsPath("spec.hcl")}, config.Options{Vars: tt.vars, Env: env})
			for _, d := range diags {
				t.Fatalf("unexpected diagnostic: %s", diagText(d))
			}
			for name, w := range tt.want {
				v := variable(t, spec, name)
				if !v.Value.RawEquals(w.value) {
					t.Errorf("%s = %#v, want %#v", name, v.Value, w.value)
				}
				if v.Source != w.source {
					t.Errorf("%s source = %q, want %q", name, v.Source, w.source)
				}
			}
		})
	}
}

func TestVariableErrors(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		env     []string
		vars    []config.VarArg
		summary string
		file    string // the subject's file, "" when there is no subject
		line    int
	}{
		{name: "undeclared -var", vars: []config.VarArg{setVar("nope", "1")}, summary: "Undeclared variable"},
		{name: "undeclared in a var-file", vars: []config.VarArg{varFile("undeclared.vars.hcl")}, summary: "Undeclared variable", file: "undeclared.vars.hcl", line: 2},
		{name: "var-file value of the wrong type", vars: []config.VarArg{varFile("bad-type.vars.hcl")}, summary: "Invalid value for variable", file: "bad-type.vars.hcl", line: 1},
		{name: "missing var-file", vars: []config.VarArg{varFile("missing.vars.hcl")}, summary: "Cannot read -var-file"},
		{name: "-var number from a string", vars: []config.VarArg{setVar("n", `"ten"`)}, summary: "Invalid value for variable"},
		{name: "-var number from a bare word", vars: []config.VarArg{setVar("n", "ten")}, summary: "Variables not allowed"},
		{name: "-var list that does not parse", vars: []config.VarArg{setVar("l", `["x"`)}},
		{name: "-var bool that is not one", vars: []config.VarArg{setVar("b", "2")}, summary: "Invalid value for variable"},
		{name: "env of the wrong type", env: []string{"MENTAT_SPEC_VAR_b=[1]"}, summary: "Invalid value for variable"},
		{name: "required variable without a value", spec: "required.hcl", summary: "No value for required variable", file: "required.hcl", line: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			if spec == "" {
				spec = "spec.hcl"
			}
			env := tt.env
			if env == nil {
				env = []string{}
			}
			_, diags := config.Load([]string{varsPath(spec)}, config.Options{Vars: tt.vars, Env: env})
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if len(diags) != 1 {
				for _, d := range diags {
					t.Log(diagText(d))
				}
				t.Fatalf("%d diagnostics, want 1", len(diags))
			}
			d := diags[0]
			if tt.summary != "" && d.Summary != tt.summary {
				t.Errorf("summary %q, want %q (%s)", d.Summary, tt.summary, d.Detail)
			}
			if tt.file == "" {
				return
			}
			if d.Subject == nil {
				t.Fatalf("no subject: %s", diagText(d))
			}
			if filepath.Base(d.Subject.Filename) != tt.file || d.Subject.Start.Line != tt.line {
				t.Errorf("subject %s:%d, want %s:%d", d.Subject.Filename, d.Subject.Start.Line, tt.file, tt.line)
			}
		})
	}
}

func TestRequiredVariableSet(t *testing.T) {
	for _, opts := range []config.Options{
		{Vars: []config.VarArg{setVar("dsn", "postgres://x")}, Env: []string{}},
		{Env: []string{"MENTAT_SPEC_VAR_dsn=postgres://x"}},
	} {
		spec, diags := config.Load([]string{varsPath("required.hcl")}, opts)
		if diags.HasErrors() {
			t.Fatalf("%v: %s", opts, diags.Error())
		}
		if v := variable(t, spec, "dsn"); v.Value.AsString() != "postgres://x" {
			t.Errorf("dsn = %#v", v.Value)
		}
	}
}

func TestVariableDeclaration(t *testing.T) {
	spec, diags := config.Load([]string{varsPath("spec.hcl")}, config.Options{Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tests := []struct {
		name      string
		ty        cty.Type
		sensitive bool
	}{
		{"n", cty.Number, false},
		{"s", cty.String, false},
		{"l", cty.List(cty.String), false},
		{"b", cty.Bool, false},
		{"any", cty.DynamicPseudoType, false},
		{"secret", cty.String, true},
	}
	for _, tt := range tests {
		v := variable(t, spec, tt.name)
		if !v.Type.Equals(tt.ty) {
			t.Errorf("%s: type %s, want %s", tt.name, v.Type.FriendlyName(), tt.ty.FriendlyName())
		}
		if v.Sensitive != tt.sensitive {
			t.Errorf("%s: sensitive %v, want %v", tt.name, v.Sensitive, tt.sensitive)
		}
		if got := spec.SensitiveVariables()[tt.name]; (got != nil) != tt.sensitive || got != nil && got != v {
			t.Errorf("%s: SensitiveVariables has %v, want it there: %v", tt.name, got, tt.sensitive)
		}
	}
	if n := len(spec.SensitiveVariables()); n != 1 {
		t.Errorf("%d sensitive variables, want 1 (secret)", n)
	}
	// A variable's value reaches the rest of the spec.
	if v, ok := spec.Scales[0].Value("users"); !ok || !v.RawEquals(cty.NumberIntVal(1)) {
		t.Errorf("scale.users = %#v, want var.n", v)
	}
}

// TestVarFileDiagnosticsHaveSource: an error in a var-file shows its source
// line, because the var-file is parsed by the spec's parser.
func TestVarFileDiagnosticsHaveSource(t *testing.T) {
	spec, diags := config.Load([]string{varsPath("spec.hcl")}, config.Options{Vars: []config.VarArg{varFile("bad-type.vars.hcl")}, Env: []string{}})
	if !diags.HasErrors() {
		t.Fatal("no error")
	}
	var b strings.Builder
	w := hcl.NewDiagnosticTextWriter(&b, spec.Parser.Files(), 100, false)
	if err := w.WriteDiagnostics(diags); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `b = "maybe"`) {
		t.Errorf("the diagnostic does not show the var-file line:\n%s", b.String())
	}
}
