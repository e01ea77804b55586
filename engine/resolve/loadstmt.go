package resolve

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
)

// Formats and id modes of a statement load.
const (
	LoadEDN        = "edn"
	LoadJSON       = "json"
	IDsEntity      = "entity" // caller-chosen entity ids: the generator's
	IDsTempid      = "tempid" // string tempids the store resolves
	TxParam        = "tx"     // the parameter a batch is bound to
	maxBatchDatoms = 1 << 24  // a sanity bound on batch_datoms
)

// resolveLoadStatement reads a load block's statement, format,
// batch_datoms and ids. Without a statement the bulk path needs tables,
// and the statement's attributes mean nothing.
func resolveLoadStatement(b *config.BackendBlock, ctx *hcl.EvalContext, l *Load) hcl.Diagnostics {
	var diags hcl.Diagnostics
	a, ok := b.Load["statement"]
	if !ok {
		if _, ok := b.Load["tables"]; !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
				Detail:  `A load block needs tables (the engine's bulk path into the datom tables) or statement (each batch of the dataset's transactions passed to the store, e.g. statement = "SELECT edn_t(:tx)").`,
				Subject: b.LoadRange.Ptr()})
		}
		for _, n := range []string{"format", "batch_datoms", "ids"} {
			if x, ok := b.Load[n]; ok {
				diags = append(diags, hcleval.AttrError(x.Expr, "Argument without a statement",
					n+" belongs to a load through a statement: set statement, or remove "+n+"."))
			}
		}
		return diags
	}
	// The defaults: EDN as the store takes it, the generator's entity
	// ids, and batches below the seed suite's embedded store's 5,461-datom
	// assertion.
	l.Format, l.BatchDatoms, l.IDs = LoadEDN, 5000, IDsEntity
	if x, ok := b.Load["batch_rows"]; ok {
		diags = append(diags, hcleval.AttrError(x.Expr, "Conflicting arguments",
			"batch_rows sizes the bulk path's commits; a load through a statement is sized by batch_datoms."))
	}
	s, d := hcleval.String(a.Expr, ctx, "statement")
	diags = append(diags, d...)
	if !d.HasErrors() {
		params := sqltext.Params(s)
		switch {
		case strings.TrimSpace(s) == "":
			diags = append(diags, hcleval.AttrError(a.Expr, "Empty statement", "statement is the SQL each batch is passed to, e.g. \"SELECT edn_t(:tx)\"."))
		case len(params) != 1 || params[0] != TxParam:
			diags = append(diags, hcleval.AttrError(a.Expr, "Invalid statement parameters",
				fmt.Sprintf("statement binds one parameter, :%s (the batch's tx-data); it uses %s.", TxParam, paramList(params))))
		}
		l.Statement = s
	}
	choice := func(name string, dst *string, allowed ...string) {
		x, ok := b.Load[name]
		if !ok {
			return
		}
		v, d := hcleval.String(x.Expr, ctx, name)
		diags = append(diags, d...)
		if d.HasErrors() {
			return
		}
		for _, al := range allowed {
			if v == al {
				*dst = v
				return
			}
		}
		diags = append(diags, hcleval.AttrError(x.Expr, "Unsupported "+name,
			fmt.Sprintf("%s = %q: it is %q or %q.", name, v, allowed[0], allowed[1])))
	}
	choice("format", &l.Format, LoadEDN, LoadJSON)
	choice("ids", &l.IDs, IDsEntity, IDsTempid)
	if x, ok := b.Load["batch_datoms"]; ok {
		v, d := hcleval.Int(x.Expr, ctx, "batch_datoms")
		diags = append(diags, d...)
		if !d.HasErrors() && (v < 1 || v > maxBatchDatoms) {
			diags = append(diags, hcleval.AttrError(x.Expr, "Invalid batch_datoms", fmt.Sprintf("batch_datoms must be between 1 and %d.", maxBatchDatoms)))
		}
		if !d.HasErrors() {
			l.BatchDatoms = int(v)
		}
	}
	return diags
}

func paramList(ps []string) string {
	if len(ps) == 0 {
		return "none"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = ":" + p
	}
	return strings.Join(out, ", ")
}
