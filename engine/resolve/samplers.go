package resolve

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// Sampler is a sampler evaluated against var.* and local.*.
type Sampler struct {
	Name      string
	Kind      string // sql, command or process
	EveryS    float64
	Query     string
	Command   []string
	Processes []string
	PIDQuery  string
	Backends  []string // empty: every backend
	Scenarios []string // nil: the scenarios whose kind is sampled
}

// Samplers evaluates the spec's samplers, reading the spec top-down: the
// names a sampler may use first, then each block's attributes, checked
// as plain values.
func Samplers(s *config.Spec) ([]Sampler, hcl.Diagnostics) {
	names := declaredNames(s)
	ctx := s.TopContext()
	blocks, diags := unique("sampler", s.Samplers, func(b *config.SamplerBlock) (string, hcl.Range) { return b.Name, b.DeclRange })
	var out []Sampler
	for _, b := range blocks {
		v := Sampler{Name: b.Name, EveryS: 10}
		a := b.Content.Attributes
		k, d := hcleval.String(a["kind"].Expr, ctx, "kind")
		diags = append(diags, d...)
		v.Kind = k
		need := map[string]string{"sql": "query", "command": "command"}
		switch k {
		case "sql", "command", "process":
			if n := need[k]; n != "" && a[n] == nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing " + n,
					Detail: fmt.Sprintf("A %s sampler needs %s.", k, n), Subject: b.DeclRange.Ptr()})
			}
		default:
			if !d.HasErrors() {
				diags = append(diags, hcleval.AttrError(a["kind"].Expr, "Unknown sampler kind", fmt.Sprintf("kind is sql, command or process, not %q.", k)))
			}
		}
		if e := a["every_s"]; e != nil {
			f, d := hcleval.Number(e.Expr, ctx, "every_s")
			diags = append(diags, d...)
			if !d.HasErrors() && f < 0.1 {
				diags = append(diags, hcleval.AttrError(e.Expr, "Invalid every_s", "every_s must be at least 0.1."))
			}
			v.EveryS = f
		}
		if e := a["query"]; e != nil {
			q, d := hcleval.String(e.Expr, ctx, "query")
			diags = append(diags, d...)
			v.Query = q
		}
		if e := a["pid_query"]; e != nil {
			q, d := hcleval.String(e.Expr, ctx, "pid_query")
			diags = append(diags, d...)
			v.PIDQuery = q
		}
		lists := map[string]*[]string{"command": &v.Command, "processes": &v.Processes, "backends": &v.Backends, "scenarios": &v.Scenarios}
		for _, n := range []string{"command", "processes", "backends", "scenarios"} {
			if e := a[n]; e != nil {
				l, d := hcleval.StringList(e.Expr, ctx, n)
				diags = append(diags, d...)
				*lists[n] = l
				if i := slices.IndexFunc(l, redact.Contains); n == "command" && i >= 0 {
					diags = append(diags, hcleval.AttrError(e.Expr, sensitiveArgvSummary, fmt.Sprintf(sensitiveArgvFormat, n, i+1, config.EnvVarPrefix, config.EnvVarPrefix)))
				}
				if l == nil {
					*lists[n] = []string{}
				}
			}
		}
		for _, n := range v.Backends {
			if !slices.Contains(names["backend"], n) {
				diags = append(diags, hcleval.AttrError(a["backends"].Expr, "Unknown backend", fmt.Sprintf("No backend %q is declared.", n)))
			}
		}
		for _, n := range v.Scenarios {
			if !slices.Contains(names["scenario"], n) {
				diags = append(diags, hcleval.AttrError(a["scenarios"].Expr, "Unknown scenario", fmt.Sprintf("No scenario %q is declared.", n)))
			}
		}
		out = append(out, v)
	}
	return out, diags
}
