package runner

import (
	"fmt"
	"math"
	"slices"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/host"
	"github.com/mentat-spec/mentat-spec/engine/noise"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// serverCommands are the command names of the plan's server processes,
// as their drivers declare them (drivers.ServerCommands).
func serverCommands(p *plan.Plan, reg *drivers.Registry) []string {
	var out []string
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			if reg == nil {
				continue
			}
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

// withNoise runs fn, point number point (from 0) of sc or its rep rep (0:
// every rep), and records the machine's noise meanwhile in noise.csv.
func (c *cell) withNoise(sc *plan.Scenario, point, rep int, fn func()) {
	s := c.run.noise
	if s == nil {
		fn()
		return
	}
	a := s.Take()
	fn()
	iv := noise.Between(a, s.Take())
	row := results.NoiseRow{Scenario: sc.Name, Backend: c.pc.Backend.Name, Scale: c.pc.Scale.Name, Point: point + 1, Rep: rep,
		Start: a.At, Seconds: iv.Seconds, Load1: iv.Load1, CPUs: iv.CPUs, BusyPct: iv.BusyPct, OwnPct: iv.OwnPct,
		ServerPct: iv.ServerPct, OtherPct: iv.OtherPct, StealPct: iv.StealPct, MHz: iv.MHz}
	if iv.Err != nil {
		nan := math.NaN()
		row.BusyPct, row.OwnPct, row.ServerPct, row.OtherPct, row.StealPct = nan, nan, nan, nan, nan
	}
	c.run.noiseRows = append(c.run.noiseRows, row)
	c.run.emit(row)
}

// noiseEnv is env.txt's summary of the run's noise.
func noiseEnv(rows []results.NoiseRow) []results.KV {
	n := results.SummarizeNoise(rows, nil)
	return []results.KV{
		host.Fact("noise", n.String(), "noise.csv: /proc/stat, /proc/loadavg, /proc/*/stat, cpufreq"),
		{Key: "noise_other_cpu_pct", Value: fmt.Sprintf("%.1f", n.OtherPct)},
		{Key: "noise_steal_pct", Value: fmt.Sprintf("%.1f", n.StealPct)},
		{Key: "noise_load1", Value: fmt.Sprintf("%.2f", n.Load1)},
	}
}
