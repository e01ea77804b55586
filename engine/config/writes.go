package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
)

// WriteBlock is `write "name" {}` in a dataset: a stream of writes after
// the load, each a pure function of the random seed and its number k. An update
// sets one attribute of the entity target draws:
//
//	write "state_change" {
//	  entity = "issue"
//	  attr   = "issue/state"                      # or attrs = [...]: one per write, uniformly
//	  value  = weighted({ open = 1, closed = 1 }) # the new value; unset: a redraw of attr's gen
//	  target = zipf("issue", 1.1)                 # the entity written
//	}
//
// An insert creates entity Count+k with every attribute drawn by its gen:
//
//	write "insert" {
//	  entity = "user"
//	  insert = true
//	}
type WriteBlock struct {
	Name                                       string
	Entity, Attr, Attrs, Value, Target, Insert hcl.Expression
	Delta                                      hcl.Expression // an additive update: the delta generator
	Draws, AbortIf                             hcl.Expression // a transaction (writesteps.go)
	Steps                                      []*StepBlock
	DeclRange                                  hcl.Range
}

var writeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "entity"}, {Name: "attr"}, {Name: "attrs"},
	{Name: "value"}, {Name: "target"}, {Name: "insert"}, {Name: "delta"},
	{Name: "draws"}, {Name: "abort_if"},
}, Blocks: []hcl.BlockHeaderSchema{{Type: "step", LabelNames: []string{"name"}}}}

func decodeWriteBlock(blk *hcl.Block) (*WriteBlock, hcl.Diagnostics) {
	w := &WriteBlock{Name: blk.Labels[0], DeclRange: blk.DefRange}
	diags := checkName("write", w.Name, blk.LabelRanges[0])
	c, d := blk.Body.Content(writeSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return w, diags
	}
	expr := func(name string) hcl.Expression {
		if a, ok := c.Attributes[name]; ok {
			return a.Expr
		}
		return nil
	}
	w.Entity, w.Attr, w.Attrs = expr("entity"), expr("attr"), expr("attrs")
	w.Value, w.Target, w.Insert = expr("value"), expr("target"), expr("insert")
	w.Delta, w.Draws, w.AbortIf = expr("delta"), expr("draws"), expr("abort_if")
	if len(c.Blocks) > 0 || w.Draws != nil || w.AbortIf != nil {
		return decodeTxWrite(w, c)
	}
	if w.Entity == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
			Detail: `A write needs entity, the kind it writes (or step blocks: a transaction).`, Subject: c.MissingItemRange.Ptr()})
		return w, diags
	}
	// Which attributes a write needs depends on insert, known only once
	// evaluated; their absence is reported here when it cannot be.
	if w.Insert == nil {
		if w.Attr == nil && w.Attrs == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
				Detail: `A write updates attr (or one of attrs) of the entity target draws, or inserts entities (insert = true).`, Subject: c.MissingItemRange.Ptr()})
		}
		if w.Target == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
				Detail: `An update needs target, the entity it writes: ref("kind") or zipf("kind", s).`, Subject: c.MissingItemRange.Ptr()})
		}
	}
	if w.Attr != nil && w.Attrs != nil {
		diags = append(diags, hcleval.AttrError(w.Attrs, "Conflicting arguments", "Set attr (one attribute) or attrs (one of several per write), not both."))
	}
	if diags.HasErrors() {
		w.Entity = nil // resolving skips it
	}
	return w, diags
}
