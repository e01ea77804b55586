package txexpr

import (
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
