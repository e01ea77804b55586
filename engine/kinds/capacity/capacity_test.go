package capacity_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/mentat-spec/mentat-spec/engine/kinds/capacity"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/zclconf/go-cty/cty"
)

func TestDecode(t *testing.T) {
	samp := measure.Sampling{MinDuration: 2 * time.Second, MaxDuration: 10 * time.Second, Warmup: 2, Probe: time.Second}
	const level = "service_level {\n  max_ms = 50\n}\n"
	const stream = "read {\n  query = query.q1\n}\n"
	tests := []struct {
		name string
		src  string
		err  string // substring of the error; "" for none
		line int
		desc string
		lo   time.Duration
		hi   time.Duration
	}{
		{name: "defaults", src: level + stream,
			desc: "capacity read q1 x8: p99<=50ms errors<=1% achieved>=95% late<=5%, rates from 100/s (down to 1/s, up to 1e+06/s) within 2%, 3 passes, at most 40 probes of 2s-10s and 10m0s",
			lo:   19 * 2 * time.Second, hi: 40 * 11050 * time.Millisecond},
		{name: "all set", src: "start_rate = 50\nmin_rate = 5\nmax_rate = 5000\nresolution_pct = 5\nrepeats = 2\nmax_probes = 12\nmax_s = 60\nmin_window_s = 1\nmax_window_s = 3\nlate_ms = 20\n" +
			"service_level {\n  percentile = 95\n  max_ms = 20\n  max_error_pct = 0.5\n  min_achieved_pct = 99\n  max_late_pct = 1\n}\nread {\n  clients = 4\n  mix = [query.q1, query.q1]\n}\n",
			desc: "capacity read q1+q1 x4: p95<=20ms errors<=0.5% achieved>=99% late<=1%, rates from 50/s (down to 5/s, up to 5000/s) within 5%, 2 passes, at most 12 probes of 1s-3s and 1m0s",
			lo:   12 * time.Second, hi: 12 * 4050 * time.Millisecond},
		{name: "clients", src: "search = \"clients\"\nmax_clients = 64\nmin_gain_pct = 10\n" + level + stream,
			desc: "capacity clients read q1: the most clients, 1 to 64, with p99<=50ms errors<=1% and throughput +10% a doubling, 3 passes, at most 40 probes of 2s-10s and 10m0s",
			lo:   19 * 2 * time.Second, hi: 40 * 11050 * time.Millisecond},
		{name: "clients with a rate", src: "search = \"clients\"\nmax_rate = 64\n" + level + stream, err: "belongs to a rate search", line: 2},
		{name: "clients of a clients search", src: "search = \"clients\"\n" + level + "read {\n  clients = 4\n  query = query.q1\n}\n", err: "drop the stream's clients", line: 5},
		{name: "max_clients of a rate search", src: "max_clients = 4\n" + level + stream, err: "belongs to search", line: 1},
		{name: "unknown search", src: "search = \"fast\"\n" + level + stream, err: "Invalid search", line: 1},
		{name: "no service level", src: stream, err: "Missing service_level", line: 1},
		{name: "no max_ms", src: "service_level {\n  percentile = 99\n}\n" + stream, err: "max_ms", line: 1},
		{name: "bad percentile", src: "service_level {\n  percentile = 100\n  max_ms = 5\n}\n" + stream, err: "at most 99.999", line: 2},
		{name: "bad pct", src: "service_level {\n  max_ms = 5\n  max_error_pct = 101\n}\n" + stream, err: "at most 100", line: 3},
		{name: "two levels", src: level + level + stream, err: "Duplicate service_level", line: 4},
		{name: "no stream", src: level, err: "needs a read or a write block", line: 1},
		{name: "two streams", src: level + stream + "write {\n  query = query.q1\n}\n", err: "one rate", line: 7},
		{name: "rates out of order", src: "start_rate = 10\nmax_rate = 5\n" + level + stream, err: "min_rate <= start_rate <= max_rate", line: 1},
		{name: "repeats", src: "repeats = 0\n" + level + stream, err: "repeats must be at least 1", line: 1},
		{name: "windows", src: "min_window_s = 3\nmax_window_s = 2\n" + level + stream, err: "max_window_s must be at least", line: 2},
		{name: "unknown query", src: level + "read {\n  query = query.q9\n}\n", err: "q9", line: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, diags := hclsyntax.ParseConfig([]byte(tt.src), "s.hcl", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			k := capacity.Kind{}
			c, diags := f.Body.Content(k.Schema())
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"query": cty.ObjectVal(map[string]cty.Value{"q1": cty.StringVal("q1")})}}
			def, diags := k.Decode(c, ctx)
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
			if len(pts) != 1 {
				t.Fatalf("%d points, want one search", len(pts))
			}
			if got := pts[0].Describe(); got != tt.desc {
				t.Errorf("describe\n %q, want\n %q", got, tt.desc)
			}
			lo, hi := pts[0].Estimate()
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("estimate %s to %s, want %s to %s", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}
