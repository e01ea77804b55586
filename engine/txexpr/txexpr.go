// Package txexpr evaluates a transaction write's run-time expressions
// (a step's delta, the abort condition) over the write's draws, as
// draw.NAME, and the columns its read returned, as read.NAME. It is the
// declarative part of a transaction: HCL expressions, no scripting.
package txexpr

import (
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Expr is one expression with the evaluation context (functions,
// variables) of the spec it came from. It implements writes.Expr.
type Expr struct {
	expr hcl.Expression
	ctx  *hcl.EvalContext
	// The expression compiled (compile.go), nil where it is not in the
	// compiled subset: Int and Bool try these first.
	iv intFn
	bv boolFn
}

// New wraps expr, evaluated under a child of ctx.
func New(expr hcl.Expression, ctx *hcl.EvalContext) *Expr {
	e := &Expr{expr: expr, ctx: ctx}
	e.iv, e.bv = compile(expr)
	return e
}

// RunTime says whether expr reads draw.* or read.*: a value only known
// when the transaction runs.
func RunTime(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if r := tr.RootName(); r == "draw" || r == "read" {
			return true
		}
	}
	return false
}

// Reads says whether expr reads read.*: it needs the operation's read.
func Reads(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() == "read" {
			return true
		}
	}
	return false
}

// Reads says whether the expression reads read.*.
func (e *Expr) Reads() bool { return Reads(e.expr) }

func (e *Expr) value(draws map[string]int64, read map[string]any) (cty.Value, error) {
	dv := make(map[string]cty.Value, len(draws))
	for k, v := range draws {
		dv[k] = cty.NumberIntVal(v)
	}
	rv := make(map[string]cty.Value, len(read))
	for k, v := range read {
		rv[k] = toCty(v)
	}
	ctx := e.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"draw": cty.ObjectVal(dv), "read": cty.ObjectVal(rv)}
	v, diags := e.expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, fmt.Errorf("%s", diags.Error())
	}
	if v.IsNull() || !v.IsKnown() {
		return cty.NilVal, fmt.Errorf("%s: the expression is null", e.expr.Range())
	}
	return v, nil
}

// Int evaluates the expression to a whole number.
func (e *Expr) Int(draws map[string]int64, read map[string]any) (int64, error) {
	if e.iv != nil {
		if n, ok := e.iv(draws, read); ok {
			return n, nil
		}
	}
	v, err := e.value(draws, read)
	if err != nil {
		return 0, err
	}
	if v.Type() != cty.Number {
		return 0, fmt.Errorf("%s: a delta is a number, not %s", e.expr.Range(), v.Type().FriendlyName())
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return 0, fmt.Errorf("%s: a delta is a whole number, not %s", e.expr.Range(), bf.Text('g', -1))
	}
	n, acc := bf.Int64()
	if acc != big.Exact {
		return 0, fmt.Errorf("%s: %s does not fit a long", e.expr.Range(), bf.Text('g', -1))
	}
	return n, nil
}

// Bool evaluates the expression to a condition.
func (e *Expr) Bool(draws map[string]int64, read map[string]any) (bool, error) {
	if e.bv != nil {
		if b, ok := e.bv(draws, read); ok {
			return b, nil
		}
	}
	v, err := e.value(draws, read)
	if err != nil {
		return false, err
	}
	if v.Type() != cty.Bool {
		return false, fmt.Errorf("%s: a condition is true or false, not %s", e.expr.Range(), v.Type().FriendlyName())
	}
	return v.True(), nil
}

// toCty converts a column value as drivers return it.
func toCty(v any) cty.Value {
	switch x := v.(type) {
	case nil:
		return cty.NullVal(cty.DynamicPseudoType)
	case int64:
		return cty.NumberIntVal(x)
	case float64:
		return cty.NumberFloatVal(x)
	case bool:
		return cty.BoolVal(x)
	case string:
		return cty.StringVal(x)
	case []byte:
		return cty.StringVal(string(x))
	case time.Time:
		return cty.StringVal(x.UTC().Format(time.RFC3339Nano))
	}
	return cty.StringVal(fmt.Sprint(v))
}
