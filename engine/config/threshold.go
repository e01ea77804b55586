package config

import (
	"github.com/hashicorp/hcl/v2"
)

// ThresholdBlock is a `threshold "name" {}` block: an absolute gate on
// the numbers of the points it matches, as k6's thresholds. A file of
// threshold blocks beside a spec is all a user adds to gate a run.
type ThresholdBlock struct {
	Name      string
	Content   *hcl.BodyContent
	DeclRange hcl.Range
}

var thresholdSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "scenario"}, {Name: "op"}, {Name: "backend"}, {Name: "scale"}, {Name: "clients"},
	{Name: "p50_ms"}, {Name: "p95_ms"}, {Name: "p99_ms"}, {Name: "max_ms"},
	{Name: "min_ops_s"}, {Name: "max_error_rate"}, {Name: "max_late_share"}, {Name: "abort"},
}}

func decodeThresholdBlock(b *hcl.Block) (*ThresholdBlock, hcl.Diagnostics) {
	diags := checkName("threshold", b.Labels[0], b.LabelRanges[0])
	c, d := b.Body.Content(thresholdSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, diags
	}
	return &ThresholdBlock{Name: b.Labels[0], Content: c, DeclRange: b.DefRange}, diags
}
