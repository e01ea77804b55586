package config

import (
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
