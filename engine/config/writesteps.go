package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
)

// StepBlock is `step "name" {}` in a transaction write: an update (an
// assignment or an addition) or an insert of one entity.
//
//	write "transfer" {
//	  draws    = { amount = uniform(1, 100) } # drawn per write, draw.amount and :amount
//	  abort_if = read.balance < draw.amount   # over the operation's read: an intended abort
//	  step "debit" {
//	    entity = "account"
//	    target = ref("account")
//	    attr   = "account/balance"
//	    delta  = -draw.amount                  # an addition; value = ... assigns
//	  }
//	  step "credit" {
//	    entity        = "account"
//	    target        = ref("account")
//	    distinct_from = "debit"
//	    attr          = "account/balance"
//	    delta         = draw.amount
//	  }
//	  step "branch" {
//	    entity = "branch"
//	    via    = "credit.account/branch" # the entity credit's account/branch refers to
//	    attr   = "branch/balance"
//	    delta  = draw.amount
//	  }
//	  step "history" {
//	    entity = "history"
//	    insert = true
//	  }
//	}
type StepBlock struct {
	Name                                    string
	Entity, Target, Via, DistinctFrom, Attr hcl.Expression
	Value, Delta, Insert                    hcl.Expression
	DeclRange                               hcl.Range
}

var stepSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "entity", Required: true}, {Name: "target"}, {Name: "via"}, {Name: "distinct_from"},
	{Name: "attr"}, {Name: "value"}, {Name: "delta"}, {Name: "insert"},
}}

// decodeTxWrite decodes the rest of a transaction write: its steps, and
// that it sets none of a single write's attributes.
func decodeTxWrite(w *WriteBlock, c *hcl.BodyContent) (*WriteBlock, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	for _, x := range []hcl.Expression{w.Entity, w.Attr, w.Attrs, w.Value, w.Target, w.Insert, w.Delta} {
		if x != nil {
			diags = append(diags, hcleval.AttrError(x, "Unexpected argument",
				"A transaction (step blocks) says what it writes in its steps: entity, attr, attrs, value, target, insert and delta belong to them."))
		}
	}
	if len(c.Blocks) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing step",
			Detail: "draws and abort_if belong to a transaction: declare its step blocks.", Subject: w.DeclRange.Ptr()})
	}
	seen := map[string]hcl.Range{}
	for _, blk := range c.Blocks {
		st := &StepBlock{Name: blk.Labels[0], DeclRange: blk.DefRange}
		diags = append(diags, checkName("step", st.Name, blk.LabelRanges[0])...)
		if prev, dup := seen[st.Name]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate step",
				Detail: "Step " + st.Name + " is already declared at " + prev.String() + ".", Subject: blk.LabelRanges[0].Ptr()})
		}
		seen[st.Name] = blk.DefRange
		sc, d := blk.Body.Content(stepSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		get := func(name string) hcl.Expression {
			if a, ok := sc.Attributes[name]; ok {
				return a.Expr
			}
			return nil
		}
		st.Entity, st.Target, st.Via, st.DistinctFrom = get("entity"), get("target"), get("via"), get("distinct_from")
		st.Attr, st.Value, st.Delta, st.Insert = get("attr"), get("value"), get("delta"), get("insert")
		if st.Value != nil && st.Delta != nil {
			diags = append(diags, hcleval.AttrError(st.Delta, "Conflicting arguments", "Set value (an assignment) or delta (an addition), not both."))
		}
		w.Steps = append(w.Steps, st)
	}
	if diags.HasErrors() {
		w.Entity, w.Steps = nil, nil // resolving skips it
		return w, diags
	}
	return w, diags
}
