package plan

import (
	"slices"

	"github.com/mentat-spec/mentat-spec/drivers"
)

// ServerCommands are the command names of the plan's server processes,
// as their drivers declare them (drivers.ServerCommands): the CPU they
// take is the run's own, not the machine's noise.
func (p *Plan) ServerCommands(reg *drivers.Registry) []string {
	var out []string
	if reg == nil {
		return nil
	}
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			d, ok := reg.Lookup(c.Backend.Driver)
			if sc, can := d.(drivers.ServerCommands); ok && can {
				for _, n := range sc.ServerCommands() {
					if !slices.Contains(out, n) {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}
