package txexpr

import (
	"math"

	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

func parse(t *testing.T, src string) hcl.Expression {
	t.Helper()
	e, d := hclsyntax.ParseExpression([]byte(src), "x.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	return e
}

func TestExprOverDrawsAndRead(t *testing.T) {
	draws := map[string]int64{"amount": 30}
	read := map[string]any{"balance": int64(20), "savings": float64(15), "name": "x", "gone": nil}
	ints := []struct {
		src  string
		want int64
		err  bool
	}{
		{"-draw.amount", -30, false},
		{"read.balance + read.savings < draw.amount ? -(draw.amount + 1) : -draw.amount", -30, false},
		{"read.balance < draw.amount ? -(draw.amount + 1) : -draw.amount", -31, false},
		{"-read.balance", -20, false},
		{"read.balance", 20, false},
		{"draw.amount", 30, false},
		{"-read.savings", -15, false}, // a double: through HCL
		{"-read.name", 0, true},
		{"-draw.missing", 0, true},
		{"draw.amount / 7", 0, true}, // not whole
		{"read.name", 0, true},
		{"read.gone", 0, true},
		{"read.missing", 0, true},
	}
	for _, c := range ints {
		got, err := New(parse(t, c.src), &hcl.EvalContext{}).Int(draws, read)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("%s = %d, %v; want %d (error %v)", c.src, got, err, c.want, c.err)
		}
	}
	b, err := New(parse(t, "read.balance < draw.amount"), &hcl.EvalContext{}).Bool(draws, read)
	if err != nil || !b {
		t.Errorf("abort = %v, %v", b, err)
	}
	if _, err := New(parse(t, "draw.amount"), &hcl.EvalContext{}).Bool(draws, read); err == nil {
		t.Error("a number taken as a condition")
	}
	if !RunTime(parse(t, "-draw.amount")) || RunTime(parse(t, "uniform(1, 2)")) || !Reads(parse(t, "read.x > 1")) || Reads(parse(t, "draw.x")) {
		t.Error("RunTime/Reads wrong")
	}
}

func BenchmarkDeltaOfADraw(b *testing.B) {
	e, _ := hclsyntax.ParseExpression([]byte("-draw.amount"), "x.hcl", hcl.InitialPos)
	x := New(e, &hcl.EvalContext{})
	draws := map[string]int64{"amount": 30}
	for i := 0; i < b.N; i++ {
		if _, err := x.Int(draws, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// wrapped hides an expression as the spec reader's per-file wrapper
// (config's dirExpr) does: the compiled path must see through it.
type wrapped struct{ hcl.Expression }

func (w wrapped) UnwrapExpression() hcl.Expression { return w.Expression }

// The compiled path answers as HCL does wherever it answers, and hands
// anything else (a double, text, a missing name, an overflow) to HCL, so
// the answers and the errors are HCL's; over draws and reads alike.
func TestCompiledAgreesWithHCL(t *testing.T) {
	srcs := []string{
		"draw.a", "-draw.a", "read.i", "-read.i", "(draw.a)", "draw.a + draw.b", "draw.a - read.i", "draw.a * read.i",
		"draw.a + 1", "draw.a * 2 - 1", "1.5", "draw.a + 0.5", "draw.a / 2", "draw.a % 3",
		"read.i + read.f", "read.s + 1", "read.n + 1", "read.missing", "draw.missing + 1", "read.big + read.big",
		"read.min * -1", "-read.min", "read.big * read.big", "read.min - 1", "read.big - read.min",
		"read.i < draw.a", "read.i <= draw.a", "read.i > draw.a", "read.i >= draw.a", "read.i == draw.a", "read.i != draw.a",
		"read.f < draw.a", "read.flag", "!read.flag", "read.flag && read.i > 0", "read.flag || read.missing > 0",
		"read.i < draw.a && !(draw.b > 3)", "read.i + read.i < draw.a ? -(draw.a + 1) : -draw.a",
		"read.flag ? 1 : 2", "read.i > 0 ? read.flag : false", "read.i > 0 ? read.s : 1", "read.i > 0 ? 1 : read.missing",
		"true", "false", "7", "-9223372036854775808", "9223372036854775808",
	}
	inputs := []struct {
		draws map[string]int64
		read  map[string]any
	}{
		{map[string]int64{"a": 30, "b": 4}, map[string]any{"i": int64(20), "f": 1.5, "s": "12", "n": nil, "flag": true, "big": int64(math.MaxInt64), "min": int64(math.MinInt64)}},
		{map[string]int64{"a": -5, "b": 0}, map[string]any{"i": int64(-5), "f": 2.0, "s": "x", "flag": false, "big": int64(1 << 40), "min": int64(-3)}},
		{map[string]int64{"a": math.MinInt64, "b": -1}, map[string]any{"i": int64(math.MaxInt64)}},
		{nil, nil},
	}
	compiled := 0
	for _, src := range srcs {
		x := parse(t, src)
		for _, e := range []hcl.Expression{x, wrapped{x}} {
			fast := New(e, &hcl.EvalContext{})
			slow := &Expr{expr: e, ctx: &hcl.EvalContext{}}
			if fast.iv != nil || fast.bv != nil {
				compiled++
			}
			for i, in := range inputs {
				gi, ei := fast.Int(in.draws, in.read)
				wi, wei := slow.Int(in.draws, in.read)
				if gi != wi || (ei == nil) != (wei == nil) || ei != nil && ei.Error() != wei.Error() {
					t.Errorf("%s, input %d: Int = %d, %v; HCL: %d, %v", src, i, gi, ei, wi, wei)
				}
				gb, eb := fast.Bool(in.draws, in.read)
				wb, web := slow.Bool(in.draws, in.read)
				if gb != wb || (eb == nil) != (web == nil) || eb != nil && eb.Error() != web.Error() {
					t.Errorf("%s, input %d: Bool = %v, %v; HCL: %v, %v", src, i, gb, eb, wb, web)
				}
			}
		}
	}
	if compiled < len(srcs) {
		t.Errorf("only %d of %d expressions compiled", compiled, 2*len(srcs))
	}
}

// A transaction's deltas and conditions, as the spec reader hands them
// over (wrapped), are evaluated without building an HCL context: no
// allocation per transaction.
func TestCompiledAllocatesNothing(t *testing.T) {
	draws := map[string]int64{"delta": 1234, "amount": 300}
	read := map[string]any{"savings": int64(100), "checking": int64(50)}
	for _, src := range []string{"draw.delta", "-draw.amount", "read.savings + read.checking < draw.amount ? -(draw.amount + 1) : -draw.amount"} {
		x := New(wrapped{parse(t, src)}, &hcl.EvalContext{})
		if n := testing.AllocsPerRun(100, func() { _, _ = x.Int(draws, read) }); n != 0 {
			t.Errorf("%s: %.0f allocations per evaluation", src, n)
		}
	}
	c := New(wrapped{parse(t, "read.checking < draw.amount")}, &hcl.EvalContext{})
	if n := testing.AllocsPerRun(100, func() { _, _ = c.Bool(draws, read) }); n != 0 {
		t.Errorf("abort_if: %.0f allocations per evaluation", n)
	}
}
