package kind_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// decode parses src as a scenario body and decodes its streams, with
// query.NAME evaluating to its name and var.n to 4.
func decode(t *testing.T, src string) ([]kind.StreamBlock, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "s.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: kind.StreamBlocks})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{
		"query": cty.ObjectVal(map[string]cty.Value{"r": cty.StringVal("r"), "w": cty.StringVal("w"), "e": cty.StringVal("e")}),
		"var":   cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(4), "none": cty.NullVal(cty.Number)}),
	}}
	return kind.DecodeStreams(content, ctx)
}

func TestDecodeOperations(t *testing.T) {
	st, diags := decode(t, `
read {
  writers = var.n
  operation "get" {
    weight = 3
    query  = query.r
  }
  operation "put" {
    weight    = 1
    write     = "gen"
    query     = query.w
    max_tries = 5
  }
  operation "rmw" {
    weight = 1
    read   = query.e
    write  = "gen"
    query  = query.w
  }
}
`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ops := st[0].Ops
	if len(ops) != 3 || len(st[0].Mix) != 0 {
		t.Fatalf("ops %+v mix %v", ops, st[0].Mix)
	}
	if ops[0].Kind() != "read" || ops[1].Kind() != "write" || ops[2].Kind() != "read_modify_write" {
		t.Errorf("kinds %s %s %s", ops[0].Kind(), ops[1].Kind(), ops[2].Kind())
	}
	if ops[1].MaxTries != 5 || ops[0].MaxTries != 1 || ops[1].Writers != 4 || ops[2].Read != "e" {
		t.Errorf("ops %+v", ops)
	}
	cum := kind.Weights(ops)
	if cum[0] != 0.6 || cum[1] != 0.8 || cum[2] != 1 {
		t.Errorf("cumulative weights %v, want [0.6 0.8 1]", cum)
	}
	if got := kind.StreamQueries(nil, ops); len(got) != 1 || got[0] != "r" {
		t.Errorf("read queries %v, want [r]", got)
	}
	if got := kind.OpGenerators(ops); len(got) != 1 || got[0] != "gen" {
		t.Errorf("generators %v", got)
	}
}

func TestDecodeOperationsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		line            int
	}{
		{"duplicate name", "read {\n  operation \"a\" {\n    weight = 1\n    query = query.r\n  }\n  operation \"a\" {\n    weight = 1\n    query = query.r\n  }\n}\n", "Duplicate operation", 6},
		{"the total's name", "read {\n  operation \"total\" {\n    weight = 1\n    query = query.r\n  }\n}\n", "Invalid operation name", 2},
		{"zero weight", "read {\n  operation \"a\" {\n    weight = 0\n    query = query.r\n  }\n}\n", "Invalid weight", 3},
		{"read without write", "read {\n  operation \"a\" {\n    weight = 1\n    read = query.e\n    query = query.r\n  }\n}\n", "read without write", 4},
		{"max_tries of a read", "read {\n  operation \"a\" {\n    weight = 1\n    query = query.r\n    max_tries = 3\n  }\n}\n", "max_tries of a read", 5},
		{"query and operations", "read {\n  query = query.r\n  operation \"a\" {\n    weight = 1\n    query = query.r\n  }\n}\n", "Invalid read block", 1},
		{"writers without writes", "read {\n  writers = 2\n  operation \"a\" {\n    weight = 1\n    query = query.r\n  }\n}\n", "writers without writes", 2},
		{"missing weight", "read {\n  operation \"a\" {\n    query = query.r\n  }\n}\n", "Missing required argument", 2},
		{"unknown attribute", "read {\n  operation \"a\" {\n    weight = 1\n    query = query.r\n    rate = 3\n  }\n}\n", "Unsupported argument", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := decode(t, tc.src)
			if !diags.HasErrors() {
				t.Fatal("accepted")
			}
			d := diags[0]
			if !strings.Contains(d.Summary, tc.want) {
				t.Errorf("summary %q, want %q (%s)", d.Summary, tc.want, diags.Error())
			}
			if d.Subject == nil || d.Subject.Start.Line != tc.line {
				t.Errorf("at %v, want line %d", d.Subject, tc.line)
			}
		})
	}
	// A null writers counts as not set.
	if _, diags := decode(t, "read {\n  writers = var.none\n  operation \"a\" {\n    weight = 1\n    query = query.r\n  }\n}\n"); diags.HasErrors() {
		t.Errorf("writers = null refused: %s", diags.Error())
	}
}

// TestWeightRule: every weight that is not a positive finite number is
// refused with one rule and one message (0 and -5 alike), and weights
// whose sum overflows (two of 1e308, which plan showed as NaN%) too.
func TestWeightRule(t *testing.T) {
	op := func(w string) string {
		return "  operation \"o" + fmt.Sprint(len(w)) + "\" {\n    weight = " + w + "\n    query = query.r\n  }\n"
	}
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{"zero", "read {\n" + op("0") + "}\n", 3},
		{"negative", "read {\n" + op("-5") + "}\n", 3},
		{"infinite", "read {\n" + op("1e309") + "}\n", 3},
		{"sum overflows", "read {\n" + op("1e308") + "  operation \"b\" {\n    weight = 1e308\n    query = query.r\n  }\n}\n", 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := decode(t, tc.src)
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got: %s", diags.Error())
			}
			d := diags[0]
			if d.Summary != "Invalid weight" || !strings.Contains(d.Detail, "positive finite number") && !strings.Contains(d.Detail, "sum past the largest number") {
				t.Errorf("%s: %s", d.Summary, d.Detail)
			}
			if d.Subject == nil || d.Subject.Start.Line != tc.line {
				t.Errorf("at %v, want line %d", d.Subject, tc.line)
			}
		})
	}
}
