package planbuild

import (
	"slices"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/resolve"
	"github.com/mentat-spec/mentat-spec/engine/sampler"
)

// samplersFor lists the samplers that run during scenario sd on backend:
// those naming it, and those naming none when its kind is sampled.
func samplersFor(all []resolve.Sampler, sd *config.ScenarioBlock, backend string) []sampler.Spec {
	var out []sampler.Spec
	for _, v := range all {
		if len(v.Backends) > 0 && !slices.Contains(v.Backends, backend) {
			continue
		}
		if v.Scenarios != nil {
			if !slices.Contains(v.Scenarios, sd.Name) {
				continue
			}
		} else if s, ok := sd.Def.(kind.Sampled); !ok || !s.Sampled() {
			continue
		}
		out = append(out, sampler.Spec{Name: v.Name, Kind: v.Kind, Every: time.Duration(v.EveryS * float64(time.Second)),
			Query: v.Query, Command: v.Command, Processes: v.Processes, PIDQuery: v.PIDQuery})
	}
	return out
}
