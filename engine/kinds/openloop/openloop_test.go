package openloop_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/kinds/openloop"
	"github.com/mentat-spec/mentat-spec/engine/kinds/sustained"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/zclconf/go-cty/cty"
)

func decode(t *testing.T, k kind.Kind, src string) (kind.Definition, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "s.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c, diags := f.Body.Content(k.Schema())
	if diags.HasErrors() {
		return nil, diags
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"query": cty.ObjectVal(map[string]cty.Value{"q1": cty.StringVal("q1")})}}
	return k.Decode(c, ctx)
}

func TestDecode(t *testing.T) {
	samp := measure.Sampling{MinDuration: 3 * time.Second, Warmup: 2}
	tests := []struct {
		name   string
		k      kind.Kind
		src    string
		err    string // substring of the error summary+detail; "" for none
		line   int    // the error's line
		points int
		desc   string // first point's description
	}{
		{name: "one rate", k: openloop.Kind{}, src: "read {\n  query = query.q1\n  rate = 500\n}\n", points: 1, desc: "open loop 3s: read q1 x4 at 500/s"},
		{name: "phases", k: openloop.Kind{}, src: "duration_s = 2\nread {\n  query = query.q1\n  rate = [100, 200, 300]\n  clients = 2\n}\n", points: 3, desc: "open loop 2s: read q1 x2 at 100/s"},
		{name: "no rate", k: openloop.Kind{}, src: "read {\n  query = query.q1\n}\n", err: "needs rate", line: 1},
		{name: "bad rate", k: openloop.Kind{}, src: "read {\n  query = query.q1\n  rate = -3\n}\n", err: "positive number", line: 3},
		{name: "string rate", k: openloop.Kind{}, src: "read {\n  query = query.q1\n  rate = \"fast\"\n}\n", err: "positive number", line: 3},
		{name: "no stream", k: openloop.Kind{}, src: "late_ms = 5\n", err: "read or a write block", line: 1},
		{name: "unknown query", k: openloop.Kind{}, src: "read {\n  query = query.q9\n  rate = 1\n}\n", err: "q9", line: 2},
		{name: "sustained", k: sustained.Kind{}, src: "duration_s = 30\nclients = 8\nread {\n  query = query.q1\n}\n", points: 1, desc: "sustained 30s: read q1 x8, windows of 10s"},
		{name: "sustained off", k: sustained.Kind{}, src: "duration_s = 0\nread {\n  query = query.q1\n}\n", points: 0},
		{name: "sustained bad window", k: sustained.Kind{}, src: "duration_s = 1\nwindow_s = 0\nread {\n  query = query.q1\n}\n", err: "window_s", line: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, diags := decode(t, tt.k, tt.src)
			if tt.err != "" {
				if !diags.HasErrors() {
					t.Fatalf("no error, want %q", tt.err)
				}
				d := diags.Errs()[0].(*hcl.Diagnostic)
				if !strings.Contains(d.Summary+" "+d.Detail, tt.err) {
					t.Errorf("error %q %q, want %q", d.Summary, d.Detail, tt.err)
				}
				if d.Subject == nil || d.Subject.Start.Line != tt.line {
					t.Errorf("error at %v, want line %d", d.Subject, tt.line)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			pts := def.Points(samp)
			if len(pts) != tt.points {
				t.Fatalf("%d points, want %d", len(pts), tt.points)
			}
			if tt.points > 0 && pts[0].Describe() != tt.desc {
				t.Errorf("describe %q, want %q", pts[0].Describe(), tt.desc)
			}
		})
	}
}
