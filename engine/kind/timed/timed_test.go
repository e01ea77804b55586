package timed_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/engine/kind/timed"
	"github.com/zclconf/go-cty/cty"
)

func decode(t *testing.T, src string) ([]timed.Stream, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "s.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: timed.StreamBlocks})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"query": cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("a"), "w": cty.StringVal("w")}),
	}}
	return timed.DecodeStreams(content, ctx)
}

func TestDecodeStreamsRates(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		rates     []float64
		err       string
	}{
		{"closed loop", "read {\n  query = query.a\n}\n", nil, ""},
		{"one rate", "read {\n  query = query.a\n  rate = 200\n}\n", []float64{200}, ""},
		{"phases", "read {\n  query = query.a\n  rate = [100, 200, 400]\n}\n", []float64{100, 200, 400}, ""},
		{"zero", "read {\n  query = query.a\n  rate = 0\n}\n", nil, "Invalid rate"},
		{"text", "read {\n  query = query.a\n  rate = \"fast\"\n}\n", nil, "Invalid rate"},
		{"no stream", "", nil, "No stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, diags := decode(t, tc.src)
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
					t.Fatalf("diagnostics %v, want %q", diags, tc.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got := st[0].Rates
			if len(got) != len(tc.rates) {
				t.Fatalf("rates %v, want %v", got, tc.rates)
			}
			for i := range got {
				if got[i] != tc.rates[i] {
					t.Errorf("rates %v, want %v", got, tc.rates)
				}
			}
			if st[0].RateAt(10) != st[0].RateAt(len(got)-1) && len(got) > 0 {
				t.Errorf("a phase past the last keeps the last rate")
			}
		})
	}
}

func TestQueriesAndWrites(t *testing.T) {
	st, diags := decode(t, "read {\n  operation \"r\" {\n    weight = 1\n    query = query.a\n  }\n  operation \"u\" {\n    weight = 1\n    write = \"gen\"\n    query = query.w\n  }\n}\n")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if q := timed.Queries(st); len(q) != 1 || q[0] != "a" {
		t.Errorf("queries %v: the reads only", q)
	}
	if !timed.Writes(st) || !timed.WritesOps(st) {
		t.Error("a write operation makes the streams write")
	}
	if g := timed.Generators(st); len(g) != 1 || g[0] != "gen" {
		t.Errorf("generators %v", g)
	}
}
