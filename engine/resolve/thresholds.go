package resolve

import (
	"fmt"
	"math"
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
// never close is a mistake at its line, not a pass.
func Thresholds(s *config.Spec) ([]threshold.Spec, hcl.Diagnostics) {
	ctx := s.TopContext()
	var out []threshold.Spec
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	var ops []string // the ops the threshold may name, once its scenario is known
	for _, b := range s.Thresholds {
		if prev, ok := seen[b.Name]; ok {
			diags = append(diags, config.DuplicateDiag("threshold", b.Name, b.DeclRange, prev))
			continue
		}
		seen[b.Name] = b.DeclRange
		v := threshold.NewSpec(b.Name)
		a := b.Content.Attributes
		strs := []struct {
			name  string
			field *string
			known func(string) bool
		}{
			{"scenario", &v.Scenario, func(n string) bool { return s.Scenario(n) != nil }},
			{"backend", &v.Backend, func(n string) bool { return s.Backend(n) != nil }},
			{"scale", &v.Scale, func(n string) bool { return s.Scale(n) != nil }},
			{"op", &v.Op, func(n string) bool {
				sc := v.Scenario
				if s.Scenario(sc) == nil {
					sc = "" // unset or unknown (reported): every scenario's ops
				}
				ops = OpNames(s, sc)
				return knownOp(n, ops)
			}},
		}
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
			if f.known != nil && !f.known(str) {
				diags = append(diags, hcleval.AttrError(e.Expr, "Unknown "+f.name, unknownName(s, f.name, str, ops)))
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

// unknownName is the detail of a threshold naming what the spec does not
// declare: the name meant when one is near, else the names there are.
func unknownName(s *config.Spec, what, name string, ops []string) string {
	var names []string
	switch what {
	case "scenario":
		for _, b := range s.Scenarios {
			names = append(names, b.Name)
		}
	case "backend":
		for _, b := range s.Backends {
			names = append(names, b.Name)
		}
	case "scale":
		for _, b := range s.Scales {
			names = append(names, b.Name)
		}
	case "op":
		names = ops
	}
	detail := fmt.Sprintf("No %s %q is declared.", what, name)
	if what == "op" {
		detail = fmt.Sprintf("No row of the spec has op %q: a threshold matching nothing would gate nothing.", name)
	}
	if m := suggest.DidYouMean(name, names); m != "" {
		return detail + m
	}
	return detail + " The " + what + "s are: " + strings.Join(names, ", ") + "."
}
