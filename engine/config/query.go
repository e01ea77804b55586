package config

import (
	"github.com/hashicorp/hcl/v2"
)

// QueryBlock is a `query "name" {}` block as decoded: SQL text per dialect
// (with a default) and how its :name parameters are made, evaluated per
// cell by resolve.Query.
type QueryBlock struct {
	Name   string
	SQL    hcl.Expression
	Params hcl.Expression
	EDN    hcl.Expression
	// Answer is how the answer comes back: "rows" (nil: the default),
	// or one JSON or EDN value the engine decodes (engine/answer).
	Answer hcl.Expression
	// Columns names the positions of a one-value answer's tuples.
	Columns   hcl.Expression
	DeclRange hcl.Range
}

var querySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "sql", Required: true}, {Name: "params"}, {Name: "edn"}, {Name: "answer"}, {Name: "columns"},
}}

func decodeQueryBlock(b *hcl.Block) (*QueryBlock, hcl.Diagnostics) {
	q := &QueryBlock{Name: b.Labels[0], DeclRange: b.DefRange}
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
	if a, ok := c.Attributes["answer"]; ok {
		q.Answer = a.Expr
	}
	if a, ok := c.Attributes["columns"]; ok {
		q.Columns = a.Expr
	}
	return q, diags
}
