package resolve

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
)

// Writes evaluates the dataset's write blocks for one scale against
// gen, the dataset resolved for that scale.
func Writes(ds *config.DatasetBlock, ctx *hcl.EvalContext, gen *datagen.Dataset) (*writes.Writes, hcl.Diagnostics) {
	var decls []writes.Decl
	var diags hcl.Diagnostics
	gens := func(expr hcl.Expression, what string) datagen.Generator {
		v, d := expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			return datagen.Generator{}
		}
		g, ok := hclfunc.AsGenerator(v)
		if !ok {
			diags = append(diags, hcleval.AttrError(expr, "Invalid generator",
				fmt.Sprintf("%s must be a generator call such as weighted({a = 1}), uniform(1, 5), ref(\"issue\") or zipf(\"issue\", 1.1).", what)))
		}
		return g
	}
	for _, w := range ds.Writes {
		if len(w.Steps) > 0 {
			decl, d := txDecl(w, ctx, gens)
			diags = append(diags, d...)
			decls = append(decls, decl)
			continue
		}
		if w.Entity == nil {
			continue // decoding reported it
		}
		decl := writes.Decl{Name: w.Name}
		var d hcl.Diagnostics
		decl.Entity, d = hcleval.String(w.Entity, ctx, "entity")
		diags = append(diags, d...)
		if w.Insert != nil {
			decl.Insert, d = hcleval.Bool(w.Insert, ctx, "insert")
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
		}
		if decl.Insert {
			// An insert draws every attribute from the entity's gens.
			for _, x := range []struct {
				name string
				expr hcl.Expression
			}{{"attr", w.Attr}, {"attrs", w.Attrs}, {"value", w.Value}, {"target", w.Target}, {"delta", w.Delta}} {
				if x.expr != nil {
					diags = append(diags, hcleval.AttrError(x.expr, "Unexpected argument",
						fmt.Sprintf("An insert (insert = true) draws every attribute of the new entity from the entity's own generators: %s belongs to updates.", x.name)))
				}
			}
			decls = append(decls, decl)
			continue
		}
		switch {
		case w.Attr != nil:
			decl.Attr, d = hcleval.String(w.Attr, ctx, "attr")
			diags = append(diags, d...)
		case w.Attrs != nil:
			decl.Attrs, d = hcleval.StringList(w.Attrs, ctx, "attrs")
			diags = append(diags, d...)
			if !d.HasErrors() && len(decl.Attrs) == 0 {
				diags = append(diags, hcleval.AttrError(w.Attrs, "Invalid attrs", "attrs lists the attributes an update may write: at least one."))
			}
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
				Detail: "An update (insert = false) needs attr or attrs.", Subject: w.DeclRange.Ptr()})
		}
		if w.Value != nil {
			decl.Value = gens(w.Value, "value")
		}
		if w.Delta != nil {
			decl.Delta = gens(w.Delta, "delta")
		}
		if w.Target == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
				Detail: `An update needs target, the entity it writes: ref("kind") or zipf("kind", s).`, Subject: w.DeclRange.Ptr()})
		} else {
			decl.Target = gens(w.Target, "target")
		}
		decls = append(decls, decl)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	out, err := writes.New(gen, decls)
	if err != nil {
		for _, e := range splitErrors(err) {
			rng := ds.DeclRange
			for _, w := range ds.Writes {
				msg := e.Error()
				switch {
				case prefixed(msg, fmt.Sprintf("write %q", w.Name)):
					rng = w.DeclRange
					for _, st := range w.Steps { // a step's own problem: at the step
						if prefixed(msg, fmt.Sprintf("write %q: step %q", w.Name, st.Name)) {
							rng = st.DeclRange
						}
					}
				case w.Value != nil && strings.Contains(msg, fmt.Sprintf(`attr "write %s value"`, w.Name)):
					rng = w.Value.Range() // the value generator's own problem
				case w.Target != nil && strings.Contains(msg, fmt.Sprintf(`attr "write %s target"`, w.Name)):
					rng = w.Target.Range()
				case strings.Contains(msg, fmt.Sprintf(`attr "write %s `, w.Name)):
					rng = w.DeclRange
				}
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid write",
				Detail: fmt.Sprintf("Dataset %q: %s.", ds.Name, e), Subject: rng.Ptr()})
		}
	}
	return out, diags
}

func prefixed(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
