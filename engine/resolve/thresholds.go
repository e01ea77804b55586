package resolve

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/suggest"
	"github.com/mentat-spec/mentat-spec/engine/threshold"
)

// thresholdLimits are the limit attributes, each with its field and
// whether it is a share (0 to 1).
var thresholdLimits = []struct {
	name  string
	field func(*threshold.Spec) *float64
	share bool
}{
	{"p50_ms", func(s *threshold.Spec) *float64 { return &s.P50Ms }, false},
	{"p95_ms", func(s *threshold.Spec) *float64 { return &s.P95Ms }, false},
	{"p99_ms", func(s *threshold.Spec) *float64 { return &s.P99Ms }, false},
	{"max_ms", func(s *threshold.Spec) *float64 { return &s.MaxMs }, false},
	{"min_ops_s", func(s *threshold.Spec) *float64 { return &s.MinOpsS }, false},
	{"max_error_rate", func(s *threshold.Spec) *float64 { return &s.MaxErrorRate }, true},
	{"max_late_share", func(s *threshold.Spec) *float64 { return &s.MaxLateShare }, true},
}

// Thresholds evaluates the spec's thresholds against var.* and
// local.*. A scenario, backend or scale a threshold names must be
// declared, and every threshold sets at least one limit: a gate that can
// never close is a mistake at its line, not a pass. It reads the spec
// top-down: the names a threshold may use first, then each block's
// attributes into a threshold.Spec, checked as plain values.
func Thresholds(s *config.Spec) ([]threshold.Spec, hcl.Diagnostics) {
	names, ops := declaredNames(s), opsByScenario(s)
	ctx := s.TopContext()
	blocks, diags := unique("threshold", s.Thresholds, func(b *config.ThresholdBlock) (string, hcl.Range) { return b.Name, b.DeclRange })
	var out []threshold.Spec
	for _, b := range blocks {
		v := threshold.NewSpec(b.Name)
		a := b.Content.Attributes
		strs := []struct {
			name  string
			field *string
		}{{"scenario", &v.Scenario}, {"backend", &v.Backend}, {"scale", &v.Scale}, {"op", &v.Op}}
		for _, f := range strs {
			e := a[f.name]
			if e == nil {
				continue
			}
			str, d := hcleval.String(e.Expr, ctx, f.name)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			known := names[f.name]
			if f.name == "op" {
				// The ops of the threshold's scenario; unset or unknown
				// (reported): every scenario's ops.
				known = ops[""]
				if o, ok := ops[v.Scenario]; ok && v.Scenario != "" {
					known = o
				}
			}
			detail := fmt.Sprintf("No %s %q is declared.", f.name, str)
			base := str
			if f.name == "op" {
				base, _, _ = strings.Cut(str, "@") // an open-loop phase is written op@rate: read@500
				detail = fmt.Sprintf("No row of the spec has op %q: a threshold matching nothing would gate nothing.", str)
			}
			if !slices.Contains(known, base) {
				diags = append(diags, hcleval.AttrError(e.Expr, "Unknown "+f.name, detail+suggest.Hint(str, known, f.name+"s")))
			}
			*f.field = str
		}
		if e := a["clients"]; e != nil {
			n, d := hcleval.Int(e.Expr, ctx, "clients")
			diags = append(diags, d...)
			if !d.HasErrors() && n < 1 {
				diags = append(diags, hcleval.AttrError(e.Expr, "Invalid clients", "clients must be at least 1."))
			}
			v.Clients = int(n)
		}
		limited := false // a limit is set, valid or not: an invalid one is reported at itself
		for _, l := range thresholdLimits {
			e := a[l.name]
			if e == nil {
				continue
			}
			limited = true
			f, d := hcleval.Number(e.Expr, ctx, l.name)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			switch {
			case math.IsNaN(f) || f < 0:
				diags = append(diags, hcleval.AttrError(e.Expr, "Invalid "+l.name, l.name+" must be at least 0."))
			case l.share && f > 1:
				diags = append(diags, hcleval.AttrError(e.Expr, "Invalid "+l.name, l.name+" is a share of the calls, from 0 to 1 (0.01 is 1%)."))
			}
			*l.field(&v) = f
		}
		if e := a["abort"]; e != nil {
			ab, d := hcleval.Bool(e.Expr, ctx, "abort")
			diags = append(diags, d...)
			v.Abort = ab
		}
		if !limited {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Threshold without a limit",
				Detail:  "A threshold sets at least one of p50_ms, p95_ms, p99_ms, max_ms, min_ops_s, max_error_rate or max_late_share.",
				Subject: b.DeclRange.Ptr()})
		}
		out = append(out, v)
	}
	return out, diags
}

// opsByScenario is the ops a threshold may name: those of each scenario,
// and under "" those of every scenario.
func opsByScenario(s *config.Spec) map[string][]string {
	ops := map[string][]string{"": OpNames(s, "")}
	for _, b := range s.Scenarios {
		ops[b.Name] = OpNames(s, b.Name)
	}
	return ops
}
