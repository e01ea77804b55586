package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// dirBody is the body of one spec file. Every expression read through it
// evaluates file() relative to that file's directory, so a file included
// from elsewhere (specs/mentat/queries.hcl from examples/quickstart.hcl)
// reads its SQL next to itself, like Terraform's path.module.
type dirBody struct {
	hcl.Body
	file function.Function
}

func newDirBody(body hcl.Body, dir string, s *Spec) hcl.Body {
	return dirBody{Body: body, file: s.fileFuncIn(dir)}
}

func (b dirBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, diags := b.Body.Content(schema)
	return b.content(c), diags
}

func (b dirBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, remain, diags := b.Body.PartialContent(schema)
	return b.content(c), dirBody{Body: remain, file: b.file}, diags
}

func (b dirBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	return b.attrs(attrs), diags
}

func (b dirBody) content(c *hcl.BodyContent) *hcl.BodyContent {
	if c == nil {
		return nil
	}
	out := *c
	out.Attributes = b.attrs(c.Attributes)
	out.Blocks = make(hcl.Blocks, len(c.Blocks))
	for i, blk := range c.Blocks {
		nb := *blk
		nb.Body = dirBody{Body: blk.Body, file: b.file}
		out.Blocks[i] = &nb
	}
	return &out
}

func (b dirBody) attrs(in hcl.Attributes) hcl.Attributes {
	if in == nil {
		return nil
	}
	out := make(hcl.Attributes, len(in))
	for n, a := range in {
		out[n] = b.attr(a)
	}
	return out
}

func (b dirBody) attr(a *hcl.Attribute) *hcl.Attribute {
	na := *a
	na.Expr = dirExpr{Expression: a.Expr, file: b.file}
	return &na
}

// dirExpr evaluates its expression with file() bound to its file's
// directory, in a child of the caller's context.
type dirExpr struct {
	hcl.Expression
	file function.Function
}

func (e dirExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	if hasFunctions(ctx) {
		ctx = ctx.NewChild()
		ctx.Functions = map[string]function.Function{"file": e.file}
	}
	return e.Expression.Value(ctx)
}

// UnwrapExpression lets hcl.ExprList and friends see the syntax inside.
func (e dirExpr) UnwrapExpression() hcl.Expression { return e.Expression }

// hasFunctions: a context without functions stays so, and file() keeps
// reporting that functions are not allowed there.
func hasFunctions(ctx *hcl.EvalContext) bool {
	for ; ctx != nil; ctx = ctx.Parent() {
		if ctx.Functions != nil {
			return true
		}
	}
	return false
}
