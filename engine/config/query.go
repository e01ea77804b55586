package config

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Query is a `query "name" {}` block: SQL text per dialect (with a
// default) and how its :name parameters are made.
type Query struct {
	Name      string
	SQL       hcl.Expression
	Params    hcl.Expression
	EDN       hcl.Expression
	DeclRange hcl.Range
}

var querySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "sql", Required: true}, {Name: "params"}, {Name: "edn"},
}}

func decodeQueryBlock(b *hcl.Block) (*Query, hcl.Diagnostics) {
	q := &Query{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("query", q.Name, b.LabelRanges[0])
	c, d := b.Body.Content(querySchema)
	diags = append(diags, d...)
	if a, ok := c.Attributes["sql"]; ok {
		q.SQL = a.Expr
	}
	if a, ok := c.Attributes["params"]; ok {
		q.Params = a.Expr
	}
	if a, ok := c.Attributes["edn"]; ok {
		q.EDN = a.Expr
	}
	return q, diags
}

// ResolvedQuery is a query for one cell and dialect.
type ResolvedQuery struct {
	Name   string
	SQL    string
	Params map[string]cty.Value // constants or ParamType values
	Range  hcl.Range
}

// Resolve picks the query's text for dialect (falling back to "default")
// and evaluates its parameters.
func (q *Query) Resolve(ctx *hcl.EvalContext, dialect string) (*ResolvedQuery, hcl.Diagnostics) {
	rq := &ResolvedQuery{Name: q.Name, Params: map[string]cty.Value{}, Range: q.DeclRange}
	var diags hcl.Diagnostics
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
					diags = append(diags, attrErr(q.SQL, "No SQL for this dialect",
						fmt.Sprintf("query %q has SQL for %v but not for %q, and no default.", q.Name, keys, dialect)))
				} else if text.Type() != cty.String || text.IsNull() {
					diags = append(diags, attrErr(q.SQL, "Incorrect attribute value type", "Each SQL text must be a string."))
				} else {
					rq.SQL = text.AsString()
				}
			default:
				diags = append(diags, attrErr(q.SQL, "Incorrect attribute value type",
					`sql must be a string or an object of strings by dialect, e.g. { default = file("q1.sql"), duckdb = file("duckdb/q1.sql") }.`))
			}
		}
	}
	if q.Params != nil {
		v, d := q.Params.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			if !v.Type().IsObjectType() && !v.Type().IsMapType() {
				diags = append(diags, attrErr(q.Params, "Incorrect attribute value type", "params must be an object: { name = value }."))
			} else {
				for k, pv := range v.AsValueMap() {
					rq.Params[k] = pv
				}
			}
		}
	}
	return rq, diags
}
