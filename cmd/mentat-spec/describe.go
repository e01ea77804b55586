package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// describeBackends prints, after the plan, what drivers that describe
// their backends (drivers.Describer: an adapter's program and its
// declared capabilities) say of each selected backend, once per backend.
func describeBackends(ctx context.Context, p *plan.Plan, w io.Writer) {
	seen := map[string]bool{}
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			bc := c.Backend
			if seen[bc.Name] {
				continue
			}
			seen[bc.Name] = true
			d, ok := drivers.Default.Lookup(bc.Driver)
			if !ok {
				continue
			}
			if ds, ok := d.(drivers.Describer); ok {
				fmt.Fprintf(w, "\nbackend %s (driver %s):\n", bc.Name, bc.Driver)
				for _, l := range ds.Describe(ctx, bc.Options) {
					fmt.Fprintf(w, "  %s\n", l)
				}
			}
		}
	}
}
