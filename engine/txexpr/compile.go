package txexpr

import (
	"math"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A compiled expression is what a transaction's deltas and conditions are
// made of (draw.X, read.X, whole-number and true/false literals, + - *,
// comparisons, && || !, ?: and parentheses) as Go closures over whole
// numbers, built once when the spec is read instead of an HCL evaluation
// context per transaction. ok false: the inputs are not what the closure
// computes exactly (a read column that is not a whole number, a missing
// name, an overflow), and the caller asks HCL, which gives the answer or
// words the error. Every operand is evaluated, as HCL evaluates both
// sides of an operator and both results of ?:, so whenever ok is true the
// answer is HCL's.
type (
	intFn  func(draws map[string]int64, read map[string]any) (int64, bool)
	boolFn func(draws map[string]int64, read map[string]any) (bool, bool)
)

// compile compiles expr as a whole number, as a condition, or neither
// (nil, nil: HCL evaluates it every time).
func compile(expr hcl.Expression) (intFn, boolFn) {
	switch e := hcl.UnwrapExpression(expr).(type) {
	case *hclsyntax.ParenthesesExpr:
		return compile(e.Expression)
	case *hclsyntax.LiteralValueExpr:
		return literal(e.Val)
	case *hclsyntax.ScopeTraversalExpr:
		return traversal(e.Traversal)
	case *hclsyntax.UnaryOpExpr:
		iv, bv := compile(e.Val)
		switch {
		case e.Op == hclsyntax.OpNegate && iv != nil:
			return func(d map[string]int64, r map[string]any) (int64, bool) {
				n, ok := iv(d, r)
				return -n, ok && n != math.MinInt64
			}, nil
		case e.Op == hclsyntax.OpLogicalNot && bv != nil:
			return nil, func(d map[string]int64, r map[string]any) (bool, bool) {
				b, ok := bv(d, r)
				return !b, ok
			}
		}
	case *hclsyntax.BinaryOpExpr:
		return binary(e)
	case *hclsyntax.ConditionalExpr:
		_, cond := compile(e.Condition)
		ti, tb := compile(e.TrueResult)
		fi, fb := compile(e.FalseResult)
		switch {
		case cond == nil:
		case ti != nil && fi != nil:
			return func(d map[string]int64, r map[string]any) (int64, bool) {
				c, ok1 := cond(d, r)
				t, ok2 := ti(d, r)
				f, ok3 := fi(d, r)
				if c {
					return t, ok1 && ok2 && ok3
				}
				return f, ok1 && ok2 && ok3
			}, nil
		case tb != nil && fb != nil:
			return nil, func(d map[string]int64, r map[string]any) (bool, bool) {
				c, ok1 := cond(d, r)
				t, ok2 := tb(d, r)
				f, ok3 := fb(d, r)
				if c {
					return t, ok1 && ok2 && ok3
				}
				return f, ok1 && ok2 && ok3
			}
		}
	}
	return nil, nil
}

func literal(v cty.Value) (intFn, boolFn) {
	if v.IsNull() || !v.IsKnown() {
		return nil, nil
	}
	switch v.Type() {
	case cty.Number:
		bf := v.AsBigFloat()
		if !bf.IsInt() {
			return nil, nil
		}
		n, acc := bf.Int64()
		if acc != big.Exact {
			return nil, nil
		}
		return func(map[string]int64, map[string]any) (int64, bool) { return n, true }, nil
	case cty.Bool:
		b := v.True()
		return nil, func(map[string]int64, map[string]any) (bool, bool) { return b, true }
	}
	return nil, nil
}

// traversal compiles draw.X (a whole number) and read.X (a whole number
// or, as a condition, true or false).
func traversal(t hcl.Traversal) (intFn, boolFn) {
	if len(t) != 2 {
		return nil, nil
	}
	at, ok := t[1].(hcl.TraverseAttr)
	if !ok {
		return nil, nil
	}
	name := at.Name
	switch t.RootName() {
	case "draw":
		return func(d map[string]int64, _ map[string]any) (int64, bool) {
			n, ok := d[name]
			return n, ok
		}, nil
	case "read":
		return func(_ map[string]int64, r map[string]any) (int64, bool) {
				n, ok := r[name].(int64)
				return n, ok
			}, func(_ map[string]int64, r map[string]any) (bool, bool) {
				b, ok := r[name].(bool)
				return b, ok
			}
	}
	return nil, nil
}

// binary compiles an arithmetic operation (overflow: not ok), a
// comparison of whole numbers, or && and || of conditions.
func binary(e *hclsyntax.BinaryOpExpr) (intFn, boolFn) {
	li, lb := compile(e.LHS)
	ri, rb := compile(e.RHS)
	ints := func(op func(a, b int64) (int64, bool)) (intFn, boolFn) {
		if li == nil || ri == nil {
			return nil, nil
		}
		return func(d map[string]int64, r map[string]any) (int64, bool) {
			a, ok1 := li(d, r)
			b, ok2 := ri(d, r)
			n, ok := op(a, b)
			return n, ok && ok1 && ok2
		}, nil
	}
	cmp := func(op func(a, b int64) bool) (intFn, boolFn) {
		if li == nil || ri == nil {
			return nil, nil
		}
		return nil, func(d map[string]int64, r map[string]any) (bool, bool) {
			a, ok1 := li(d, r)
			b, ok2 := ri(d, r)
			return op(a, b), ok1 && ok2
		}
	}
	logic := func(op func(a, b bool) bool) (intFn, boolFn) {
		if lb == nil || rb == nil {
			return nil, nil
		}
		return nil, func(d map[string]int64, r map[string]any) (bool, bool) {
			a, ok1 := lb(d, r)
			b, ok2 := rb(d, r)
			return op(a, b), ok1 && ok2
		}
	}
	switch e.Op {
	case hclsyntax.OpAdd:
		return ints(func(a, b int64) (int64, bool) {
			s := a + b
			return s, (s > a) == (b > 0)
		})
	case hclsyntax.OpSubtract:
		return ints(func(a, b int64) (int64, bool) {
			s := a - b
			return s, (s < a) == (b > 0)
		})
	case hclsyntax.OpMultiply:
		return ints(func(a, b int64) (int64, bool) {
			if a == 0 || b == 0 {
				return 0, true
			}
			p := a * b
			return p, p/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
		})
	case hclsyntax.OpLessThan:
		return cmp(func(a, b int64) bool { return a < b })
	case hclsyntax.OpLessThanOrEqual:
		return cmp(func(a, b int64) bool { return a <= b })
	case hclsyntax.OpGreaterThan:
		return cmp(func(a, b int64) bool { return a > b })
	case hclsyntax.OpGreaterThanOrEqual:
		return cmp(func(a, b int64) bool { return a >= b })
	case hclsyntax.OpEqual:
		return cmp(func(a, b int64) bool { return a == b })
	case hclsyntax.OpNotEqual:
		return cmp(func(a, b int64) bool { return a != b })
	case hclsyntax.OpLogicalAnd:
		return logic(func(a, b bool) bool { return a && b })
	case hclsyntax.OpLogicalOr:
		return logic(func(a, b bool) bool { return a || b })
	}
	return nil, nil
}
