package hcleval

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// TestPrimitiveList: each item of a list of strings, numbers or bools as
// text, whole numbers without a decimal point; anything else is an error
// at the expression.
func TestPrimitiveList(t *testing.T) {
	tests := []struct {
		src     string
		want    []string
		wantErr string
	}{
		{`["a", 3, 2.5, true, -7]`, []string{"a", "3", "2.5", "true", "-7"}, ""},
		{`[1e20]`, []string{"1e+20"}, ""}, // beyond an int64's exact range: not as an integer
		{`[]`, nil, ""},
		{`"a"`, nil, "value must be a list"},
		{`{a = 1}`, nil, "value must be a list"},
		{`[[1]]`, nil, "want a string, number or bool"},
		{`[null]`, nil, "known and not null"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			expr, diags := hclsyntax.ParseExpression([]byte(tt.src), "t.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got, diags := PrimitiveList(expr, &hcl.EvalContext{Variables: map[string]cty.Value{}}, "value")
			if tt.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.wantErr) {
					t.Fatalf("diags %v, want one saying %q", diags, tt.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("item %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
