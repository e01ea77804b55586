package runner

import (
	"math"

	"github.com/mentat-spec/mentat-spec/engine/noise"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

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
