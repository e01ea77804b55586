package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
)

// WriteBlock is `write "name" {}` in a dataset: a stream of writes after
// the load, each a pure function of the seed and its number k.
//
//	write "state_change" {
//	  entity = "issue"
//	  attr   = "issue/state"
//	  value  = weighted({ open = 1, closed = 1 }) # the new value
//	  target = zipf("issue", 1.1)                 # the entity written
//	}
type WriteBlock struct {
	Name                        string
	Entity, Attr, Value, Target hcl.Expression
	DeclRange                   hcl.Range
}

var writeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "entity", Required: true}, {Name: "attr", Required: true},
	{Name: "value", Required: true}, {Name: "target", Required: true},
}}

func decodeWriteBlock(blk *hcl.Block) (*WriteBlock, hcl.Diagnostics) {
	w := &WriteBlock{Name: blk.Labels[0], DeclRange: blk.DefRange}
	diags := checkName("write", w.Name, blk.LabelRanges[0])
	c, d := blk.Body.Content(writeSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return w, diags
	}
	w.Entity, w.Attr = c.Attributes["entity"].Expr, c.Attributes["attr"].Expr
	w.Value, w.Target = c.Attributes["value"].Expr, c.Attributes["target"].Expr
	return w, diags
}

// ResolveWrites evaluates the dataset's write blocks for one scale against
// gen, the dataset resolved for that scale.
func (ds *Dataset) ResolveWrites(ctx *hcl.EvalContext, gen *datagen.Dataset) (*datagen.Writes, hcl.Diagnostics) {
	var decls []datagen.WriteDecl
	var diags hcl.Diagnostics
	gens := func(expr hcl.Expression, what string) datagen.Generator {
		v, d := expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			return datagen.Generator{}
		}
		g, ok := AsGenerator(v)
		if !ok {
			diags = append(diags, attrErr(expr, "Invalid generator",
				fmt.Sprintf("%s must be a generator call such as weighted({a = 1}), uniform(1, 5), ref(\"issue\") or zipf(\"issue\", 1.1).", what)))
		}
		return g
	}
	for _, w := range ds.Writes {
		if w.Entity == nil {
			continue // decoding reported it
		}
		decl := datagen.WriteDecl{Name: w.Name}
		var d hcl.Diagnostics
		decl.Entity, d = evalString(w.Entity, ctx, "entity")
		diags = append(diags, d...)
		decl.Attr, d = evalString(w.Attr, ctx, "attr")
		diags = append(diags, d...)
		decl.Value = gens(w.Value, "value")
		decl.Target = gens(w.Target, "target")
		decls = append(decls, decl)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	out, err := datagen.NewWrites(gen, decls)
	if err != nil {
		for _, e := range splitErrors(err) {
			rng := ds.DeclRange
			for _, w := range ds.Writes {
				if prefixed(e.Error(), fmt.Sprintf("write %q", w.Name)) {
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
