package hclfunc

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/zclconf/go-cty/cty"
)

func evalFn(t *testing.T, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "f.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s: %s", src, diags.Error())
	}
	return expr.Value(&hcl.EvalContext{Functions: Functions()})
}

// TestTimeFunctions: an instant written once as RFC 3339 gives the epoch
// milliseconds a query parameter needs, and durations read as people
// write them.
func TestTimeFunctions(t *testing.T) {
	tests := []struct {
		src  string
		want cty.Value
	}{
		{`epoch_ms("2025-03-01T00:00:00Z")`, cty.NumberIntVal(1740787200000)},
		{`epoch_ms(1740787200000)`, cty.NumberIntVal(1740787200000)},
		{`rfc3339(1740787200000)`, cty.StringVal("2025-03-01T00:00:00Z")},
		{`duration_ms("90m")`, cty.NumberIntVal(90 * 60 * 1000)},
		{`duration_ms("2d")`, cty.NumberIntVal(2 * 24 * 3600 * 1000)},
		{`timeadd("2025-03-01T00:00:00Z", "30d")`, cty.StringVal("2025-03-31T00:00:00Z")},
		{`timeadd("2025-03-01T00:00:00Z", "-36h")`, cty.StringVal("2025-02-27T12:00:00Z")},
		{`epoch_ms(timeadd("2025-03-01T00:00:00Z", "1h")) - epoch_ms("2025-03-01T00:00:00Z")`, cty.NumberIntVal(3600000)},
	}
	for _, tt := range tests {
		got, diags := evalFn(t, tt.src)
		if diags.HasErrors() {
			t.Errorf("%s: %s", tt.src, diags.Error())
			continue
		}
		if !got.RawEquals(tt.want) && !(got.Type() == cty.Number && got.Equals(tt.want).True()) {
			t.Errorf("%s = %#v, want %#v", tt.src, got, tt.want)
		}
	}
	for _, bad := range []string{`epoch_ms("March 1st")`, `duration_ms("soon")`, `timeadd("2025-03-01", "1h")`, `epoch_ms(true)`} {
		if _, diags := evalFn(t, bad); !diags.HasErrors() {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestGeneratorFunctions covers the generators of dependent and derived
// data and seq's zero padding.
func TestGeneratorFunctions(t *testing.T) {
	tests := []struct {
		src  string
		want datagen.Generator
	}{
		{`seq("VAN-%05d")`, datagen.Generator{Kind: datagen.GenSeq, Format: "VAN-%05d"}},
		{`seq("100%% u%d")`, datagen.Generator{Kind: datagen.GenSeq, Format: "100%% u%d"}},
		{`parent()`, datagen.Generator{Kind: datagen.GenParent}},
		{`ordinal()`, datagen.Generator{Kind: datagen.GenOrdinal}},
		{`offset("a/start", "2h", 36000000)`, datagen.Generator{Kind: datagen.GenOffset, Source: "a/start", Min: 7200000, Max: 36000000}},
	}
	for _, tt := range tests {
		v, diags := evalFn(t, tt.src)
		if diags.HasErrors() {
			t.Errorf("%s: %s", tt.src, diags.Error())
			continue
		}
		g, ok := AsGenerator(v)
		if !ok || g.Kind != tt.want.Kind || g.Format != tt.want.Format || g.Source != tt.want.Source || g.Min != tt.want.Min || g.Max != tt.want.Max {
			t.Errorf("%s = %+v, want %+v", tt.src, g, tt.want)
		}
	}
	for _, bad := range []string{`seq("VAN-%5d")`, `seq("%d-%d")`, `seq("VAN")`, `offset("a", "3h", "1h")`, `offset("a", "soon", "1h")`} {
		if _, diags := evalFn(t, bad); !diags.HasErrors() {
			t.Errorf("%s: no error", bad)
		}
	}
}

// random_bytes is a generator of its length.
func TestRandomBytesFunc(t *testing.T) {
	v, diags := evalFn(t, `random_bytes(100)`)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if g, ok := AsGenerator(v); !ok || g.Kind != datagen.GenRandomBytes || g.Length != 100 {
		t.Errorf("got %+v", g)
	}
}
