package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// ScenarioBlock is a `scenario "name" {}` block. Every scenario has a
// description, a kind, the backends it runs on, its sampling and its
// checks; the rest of its body belongs to its kind (see engine/kind),
// which decodes it into a Definition.
type ScenarioBlock struct {
	Name        string
	Description string
	KindName    string // as written; "" means the registry's default kind
	KindRange   hcl.Range
	BackendsExp hcl.Expression
	SamplingB   hcl.Body
	Checks      []*CheckBlock
	Body        hcl.Body // the kind's part of the body
	DeclRange   hcl.Range

	// Set by decodeTop.
	Kind     kind.Kind
	Def      kind.Definition
	Backends []string // empty: every backend
	Sampling SamplingValues
}

// CheckBlock is a `check "name" {}` block.
type CheckBlock struct {
	Name      string
	QueryExpr hcl.Expression
	Attrs     map[string]*hcl.Attribute
	DeclRange hcl.Range

	Query string // set by decodeTop
}

// scenarioSchema is what every scenario has; the rest is its kind's.
var scenarioSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "kind"}, {Name: "backends"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "sampling"},
		{Type: "check", LabelNames: []string{"name"}},
	},
}

var checkSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "query", Required: true}, {Name: "for_each"}, {Name: "params"},
	{Name: "expect_rows"}, {Name: "expect_values"}, {Name: "expect_set"}, {Name: "expect_map"}, {Name: "expect_sum"}, {Name: "expect_ids"}, {Name: "expect_list"},
	{Name: "during_ms"}, // an invariant also checked while the scenario runs (plan/during.go)
}}

func decodeScenarioBlock(b *hcl.Block) (*ScenarioBlock, hcl.Diagnostics) {
	sc := &ScenarioBlock{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("scenario", sc.Name, b.LabelRanges[0])
	c, remain, d := b.Body.PartialContent(scenarioSchema)
	diags = append(diags, d...)
	sc.Body = remain
	if a, ok := c.Attributes["description"]; ok {
		diags = append(diags, decodeLiteral(a, cty.String, &sc.Description)...)
	}
	if a, ok := c.Attributes["kind"]; ok {
		diags = append(diags, decodeLiteral(a, cty.String, &sc.KindName)...)
		sc.KindRange = a.Expr.Range()
	}
	if a, ok := c.Attributes["backends"]; ok {
		sc.BackendsExp = a.Expr
	}
	checkNames := map[string]hcl.Range{}
	var samplingRange hcl.Range
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "sampling":
			if sc.SamplingB != nil {
				diags = append(diags, DuplicateDiag("sampling", "", blk.DefRange, samplingRange))
				continue
			}
			sc.SamplingB, samplingRange = blk.Body, blk.DefRange
		case "check":
			name := blk.Labels[0]
			if prev, ok := checkNames[name]; ok {
				diags = append(diags, DuplicateDiag("check", name, blk.DefRange, prev))
			}
			checkNames[name] = blk.DefRange
			cc, d := blk.Body.Content(checkSchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			ck := &CheckBlock{Name: name, QueryExpr: cc.Attributes["query"].Expr, Attrs: cc.Attributes, DeclRange: blk.DefRange}
			has := false
			for _, k := range []string{"expect_rows", "expect_values", "expect_set", "expect_map", "expect_sum", "expect_ids", "expect_list"} {
				_, ok := cc.Attributes[k]
				has = has || ok
			}
			if !has {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Check expects nothing",
					Detail:  "A check needs at least one of expect_rows, expect_values, expect_set, expect_map and expect_sum: a check that cannot fail is a defect.",
					Subject: blk.DefRange.Ptr()})
			}
			sc.Checks = append(sc.Checks, ck)
		}
	}
	return sc, diags
}

// queryObject is query.* as seen by expressions: each name evaluates to
// itself, so query.q9 is an error at its own line.
func (s *Spec) queryObject() cty.Value {
	m := map[string]cty.Value{}
	for _, q := range s.Queries {
		m[q.Name] = cty.StringVal(q.Name)
	}
	return cty.ObjectVal(m)
}

func (sc *ScenarioBlock) decodeTop(s *Spec, top *hcl.EvalContext) hcl.Diagnostics {
	ctx := top
	var diags hcl.Diagnostics
	name := sc.KindName
	if name == "" {
		name = s.kinds.DefaultName()
	}
	k, ok := s.kinds.Lookup(name)
	if !ok {
		subject := sc.KindRange.Ptr()
		if sc.KindName == "" {
			subject = sc.DeclRange.Ptr()
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown scenario kind",
			Detail: fmt.Sprintf("Scenario %q has kind %q; the kinds are %v.", sc.Name, name, s.kinds.Names()), Subject: subject})
	} else {
		sc.Kind = k
		content, d := sc.Body.Content(k.Schema())
		diags = append(diags, d...)
		if !d.HasErrors() {
			def, d := k.Decode(content, ctx)
			diags = append(diags, d...)
			sc.Def = def
		}
	}
	if sc.BackendsExp != nil {
		l, d := hcleval.StringList(sc.BackendsExp, ctx, "backends")
		diags = append(diags, d...)
		for _, n := range l {
			if s.Backend(n) == nil {
				diags = append(diags, hcleval.AttrError(sc.BackendsExp, "Unknown backend", fmt.Sprintf("No backend %q is declared.", n)))
			}
		}
		sc.Backends = l
	}
	sc.Sampling = s.Sampling.Values
	if sc.SamplingB != nil {
		v, d := decodeSampling(sc.SamplingB, top, s.Sampling.Values)
		diags = append(diags, d...)
		sc.Sampling = v
	}
	for _, ck := range sc.Checks {
		n, d := hcleval.String(ck.QueryExpr, ctx, "query")
		diags = append(diags, d...)
		ck.Query = n
	}
	return diags
}

// Queries lists the queries the scenario runs (not its checks').
func (sc *ScenarioBlock) Queries() []string {
	if sc.Def == nil {
		return nil
	}
	return sc.Def.Queries()
}

// RunsOn reports whether the scenario runs on a backend.
func (sc *ScenarioBlock) RunsOn(backend string) bool {
	if len(sc.Backends) == 0 {
		return true
	}
	for _, b := range sc.Backends {
		if b == backend {
			return true
		}
	}
	return false
}
