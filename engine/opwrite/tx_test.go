package opwrite

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/txexpr"
)

// A transaction whose condition or delta reads read.* needs the
// operation's read query; one over its draws alone does not.
func TestNeedsRead(t *testing.T) {
	expr := func(src string) writes.Expr {
		e, d := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
		if d.HasErrors() {
			t.Fatal(d)
		}
		return txexpr.New(e, &hcl.EvalContext{})
	}
	for _, tc := range []struct {
		decl writes.Decl
		read string
		want string
	}{
		{writes.Decl{Name: "w", AbortIf: expr("read.x < 1")}, "", "abort_if reads read.*"},
		{writes.Decl{Name: "w", AbortIf: expr("read.x < 1")}, "q", ""},
		{writes.Decl{Name: "w", Steps: []writes.Step{{Name: "s", DeltaExpr: expr("-read.x")}}}, "", "step s of write w"},
		{writes.Decl{Name: "w", AbortIf: expr("draw.x < 1"), Steps: []writes.Step{{Name: "s", DeltaExpr: expr("-draw.x")}}}, "", ""},
	} {
		err := NeedsRead(tc.decl, kind.Operation{Name: "op", Read: tc.read})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v read %q: %v, want %q", tc.decl, tc.read, err, tc.want)
		}
	}
}
