package resolve

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/answer"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/zclconf/go-cty/cty"
)

// CellQuery is a query for one cell and dialect.
type CellQuery struct {
	Name   string
	SQL    string
	Params map[string]cty.Value // constants or hclfunc.ParamType values
	// Answer is "rows", or "json"/"edn": the answer is one value the
	// checks read decoded (engine/answer); Columns names its tuples'
	// positions.
	Answer  string
	Columns []string
	// EDN is the query's `edn` text: the Datalog a mentat deployment
	// runs, which a backend's explain statement binds as :q.
	EDN   string
	Range hcl.Range
}

// Query picks a query block's text for dialect (falling back to "default")
// and evaluates its parameters.
func Query(q *config.QueryBlock, ctx *hcl.EvalContext, dialect string) (*CellQuery, hcl.Diagnostics) {
	rq := &CellQuery{Name: q.Name, Params: map[string]cty.Value{}, Range: q.DeclRange, Answer: answer.Rows}
	diags := answerFormat(q, ctx, rq)
	if q.EDN != nil {
		s, d := hcleval.String(q.EDN, ctx, "edn")
		diags = append(diags, d...)
		rq.EDN = s
	}
	if q.SQL != nil {
		v, d := q.SQL.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			switch {
			case !v.IsWhollyKnown():
			case v.Type() == cty.String:
				rq.SQL = v.AsString()
			case v.Type().IsObjectType() || v.Type().IsMapType():
				m := v.AsValueMap()
				text, ok := m[dialect]
				if !ok {
					text, ok = m["default"]
				}
				if !ok {
					keys := make([]string, 0, len(m))
					for k := range m {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					diags = append(diags, hcleval.AttrError(q.SQL, "No SQL for this dialect",
						fmt.Sprintf("query %q has SQL for %v but not for %q, and no default.", q.Name, keys, dialect)))
				} else if text.Type() != cty.String || text.IsNull() {
					diags = append(diags, hcleval.AttrError(q.SQL, "Incorrect attribute value type", "Each SQL text must be a string."))
				} else {
					rq.SQL = text.AsString()
				}
			default:
				diags = append(diags, hcleval.AttrError(q.SQL, "Incorrect attribute value type",
					`sql must be a string or an object of strings by dialect, e.g. { default = file("q1.sql"), duckdb = file("duckdb/q1.sql") }.`))
			}
		}
	}
	if q.Params != nil {
		v, d := q.Params.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			if !v.Type().IsObjectType() && !v.Type().IsMapType() {
				diags = append(diags, hcleval.AttrError(q.Params, "Incorrect attribute value type", "params must be an object: { name = value }."))
			} else {
				for k, pv := range v.AsValueMap() {
					rq.Params[k] = pv
				}
			}
		}
	}
	return rq, diags
}

// answerFormat reads a query's `answer` and `columns`.
func answerFormat(q *config.QueryBlock, ctx *hcl.EvalContext, rq *CellQuery) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if q.Answer != nil {
		s, d := hcleval.String(q.Answer, ctx, "answer")
		diags = append(diags, d...)
		if !d.HasErrors() {
			if !answer.Valid(s) {
				diags = append(diags, hcleval.AttrError(q.Answer, "Unsupported answer format",
					fmt.Sprintf("answer = %q: the formats are %q (the rows as returned), %q and %q (one value, the first column of the only row, decoded into rows).",
						s, answer.Rows, answer.JSON, answer.EDN)))
			} else {
				rq.Answer = s
			}
		}
	}
	if q.Columns != nil {
		l, d := hcleval.StringList(q.Columns, ctx, "columns")
		diags = append(diags, d...)
		if !d.HasErrors() && rq.Answer == answer.Rows {
			diags = append(diags, hcleval.AttrError(q.Columns, "Columns without a one-value answer",
				`columns names the positions of the tuples of a one-value answer: set answer = "json" or "edn", or remove columns (a query's rows carry their own column names).`))
		}
		rq.Columns = l
	}
	return diags
}
