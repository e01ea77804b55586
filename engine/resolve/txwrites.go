package resolve

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/txexpr"
)

// txDecl evaluates a transaction write: its draws, its abort condition
// and its steps. A delta that reads draw.* or read.* is evaluated when the
// transaction runs; any other delta is a generator drawn per write.
func txDecl(w *config.WriteBlock, ctx *hcl.EvalContext, gens func(hcl.Expression, string) datagen.Generator) (writes.Decl, hcl.Diagnostics) {
	decl := writes.Decl{Name: w.Name}
	var diags hcl.Diagnostics
	if w.Draws != nil {
		pairs, d := hcl.ExprMap(w.Draws)
		diags = append(diags, d...)
		for _, p := range pairs {
			name, d := hcleval.String(p.Key, ctx, "draw name")
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			decl.Draws = append(decl.Draws, writes.Draw{Name: name, Gen: gens(p.Value, fmt.Sprintf("draw %q", name))})
		}
	}
	if w.AbortIf != nil {
		decl.AbortIf = txexpr.New(w.AbortIf, ctx)
	}
	for _, st := range w.Steps {
		s := writes.Step{Name: st.Name}
		str := func(expr hcl.Expression, name string) string {
			if expr == nil {
				return ""
			}
			v, d := hcleval.String(expr, ctx, name)
			diags = append(diags, d...)
			return v
		}
		s.Entity = str(st.Entity, "entity")
		s.Via = str(st.Via, "via")
		s.DistinctFrom = str(st.DistinctFrom, "distinct_from")
		s.Attr = str(st.Attr, "attr")
		if st.Insert != nil {
			var d hcl.Diagnostics
			s.Insert, d = hcleval.Bool(st.Insert, ctx, "insert")
			diags = append(diags, d...)
		}
		if st.Target != nil {
			s.Target = gens(st.Target, "target")
		}
		if st.Value != nil {
			s.Value = gens(st.Value, "value")
		}
		if st.Delta != nil {
			if txexpr.RunTime(st.Delta) {
				s.DeltaExpr = txexpr.New(st.Delta, ctx)
			} else {
				s.Delta = gens(st.Delta, "delta")
			}
		}
		decl.Steps = append(decl.Steps, s)
	}
	return decl, diags
}
