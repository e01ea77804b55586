package resolve

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
)

// unique is blocks without those whose name an earlier block of the same
// type already has, each reported at itself as a duplicate: a first pass,
// so that the evaluation after it reads each block once.
func unique[B any](typ string, blocks []B, name func(B) (string, hcl.Range)) ([]B, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	out := make([]B, 0, len(blocks))
	for _, b := range blocks {
		n, rng := name(b)
		if prev, ok := seen[n]; ok {
			diags = append(diags, config.DuplicateDiag(typ, n, rng, prev))
			continue
		}
		seen[n] = rng
		out = append(out, b)
	}
	return out, diags
}

// declaredNames is the names of the spec's scenarios, backends and scales
// (keys "scenario", "backend", "scale"), in declaration order: read once,
// before the blocks that name them are evaluated.
func declaredNames(s *config.Spec) map[string][]string {
	names := map[string][]string{}
	for _, b := range s.Scenarios {
		names["scenario"] = append(names["scenario"], b.Name)
	}
	for _, b := range s.Backends {
		names["backend"] = append(names["backend"], b.Name)
	}
	for _, b := range s.Scales {
		names["scale"] = append(names["scale"], b.Name)
	}
	return names
}
