package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// SamplerBlock is a `sampler "name" {}` block: something recorded every
// every_s seconds during the scenarios it names (by default the ones
// whose kind asks for samplers, such as sustained).
type SamplerBlock struct {
	Name      string
	Content   *hcl.BodyContent
	DeclRange hcl.Range
}

// SamplerValues is a sampler evaluated against var.* and local.*.
type SamplerValues struct {
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

var samplerSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "kind", Required: true}, {Name: "every_s"}, {Name: "query"}, {Name: "command"}, {Name: "processes"}, {Name: "pid_query"},
	{Name: "backends"}, {Name: "scenarios"},
}}

func decodeSamplerBlock(b *hcl.Block) (*SamplerBlock, hcl.Diagnostics) {
	diags := checkName("sampler", b.Labels[0], b.LabelRanges[0])
	c, d := b.Body.Content(samplerSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, diags
	}
	return &SamplerBlock{Name: b.Labels[0], Content: c, DeclRange: b.DefRange}, diags
}

// ResolveSamplers evaluates the spec's samplers.
func (s *Spec) ResolveSamplers() ([]SamplerValues, hcl.Diagnostics) {
	ctx := s.TopContext()
	var out []SamplerValues
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, b := range s.Samplers {
		if prev, ok := seen[b.Name]; ok {
			diags = append(diags, duplicateDiag("sampler", b.Name, b.DeclRange, prev))
			continue
		}
		seen[b.Name] = b.DeclRange
		v := SamplerValues{Name: b.Name, EveryS: 10}
		a := b.Content.Attributes
		k, d := evalString(a["kind"].Expr, ctx, "kind")
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
				diags = append(diags, attrErr(a["kind"].Expr, "Unknown sampler kind", fmt.Sprintf("kind is sql, command or process, not %q.", k)))
			}
		}
		if e := a["every_s"]; e != nil {
			f, d := evalNumber(e.Expr, ctx, "every_s")
			diags = append(diags, d...)
			if !d.HasErrors() && f < 0.1 {
				diags = append(diags, attrErr(e.Expr, "Invalid every_s", "every_s must be at least 0.1."))
			}
			v.EveryS = f
		}
		if e := a["query"]; e != nil {
			q, d := evalString(e.Expr, ctx, "query")
			diags = append(diags, d...)
			v.Query = q
		}
		if e := a["pid_query"]; e != nil {
			q, d := evalString(e.Expr, ctx, "pid_query")
			diags = append(diags, d...)
			v.PIDQuery = q
		}
		lists := map[string]*[]string{"command": &v.Command, "processes": &v.Processes, "backends": &v.Backends, "scenarios": &v.Scenarios}
		for _, n := range []string{"command", "processes", "backends", "scenarios"} {
			if e := a[n]; e != nil {
				l, d := evalStringList(e.Expr, ctx, n)
				diags = append(diags, d...)
				*lists[n] = l
				if l == nil {
					*lists[n] = []string{}
				}
			}
		}
		for _, n := range v.Backends {
			if s.Backend(n) == nil {
				diags = append(diags, attrErr(a["backends"].Expr, "Unknown backend", fmt.Sprintf("No backend %q is declared.", n)))
			}
		}
		for _, n := range v.Scenarios {
			if s.scenario(n) == nil {
				diags = append(diags, attrErr(a["scenarios"].Expr, "Unknown scenario", fmt.Sprintf("No scenario %q is declared.", n)))
			}
		}
		out = append(out, v)
	}
	return out, diags
}
