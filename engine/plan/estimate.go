package plan

import (
	"fmt"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/kind"
)

// Load rates assumed for a driver that states no per-datom cost
// (drivers.StoreEstimator), in datoms per second: the slowest and fastest
// apply measured here across the three backends (BENCHMARKS.md), widened.
const (
	loadRateLow  = 250_000
	loadRateHigh = 2_000_000
)

// Spreads around a best estimate: the range a model's guess is given
// (timings on this machine vary with its load by about that much), and
// the narrower one of a duration measured in an earlier run.
const (
	modelSpread    = 1.5
	measuredSpread = 1.25
)

// Estimate is a best guess of a duration and the range around it.
type Estimate struct{ Lo, Hi, Best time.Duration }

func (e *Estimate) add(o Estimate) { e.Lo += o.Lo; e.Hi += o.Hi; e.Best += o.Best }

// String is "about BEST (LO to HI)", or "LO to HI" for a range alone.
func (e Estimate) String() string {
	lo, hi := roundDur(e.Lo), roundDur(e.Hi)
	if lo == hi {
		return lo
	}
	r := lo + " to " + hi
	if e.Best == 0 {
		return r
	}
	return "about " + roundDur(e.Best) + " (" + r + ")"
}

func roundDur(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return d.Round(100 * time.Millisecond).String()
}

// around is best with the range spread either side, kept within the
// bounds lo and hi a kind gives (hi 0: none).
func around(best time.Duration, spread float64, lo, hi time.Duration) Estimate {
	e := Estimate{Lo: time.Duration(float64(best) / spread), Hi: time.Duration(float64(best) * spread), Best: best}
	e.Lo = max(e.Lo, lo)
	if hi > 0 {
		e.Hi = min(e.Hi, hi)
	}
	return e
}

// pointEstimate is a point's estimate from its kind: its bounds, and
// its expected duration where the kind knows one (kind.Expecter), the
// middle of the bounds otherwise.
func pointEstimate(pt kind.Point) Estimate {
	lo, hi := pt.Estimate()
	best := lo + (hi-lo)/2
	if ex, ok := pt.(kind.Expecter); ok {
		best = min(max(ex.Expected(), lo), hi)
	}
	return around(best, modelSpread, lo, hi)
}

// LoadEstimate is loading the cell's dataset, with what follows it
// (after_load, analyze, vacuum): measured in an earlier run
// (EstimateFrom), or from the driver's cost per datom; zero when the
// backend declares no load.
func (c *Cell) LoadEstimate() Estimate {
	if !c.Backend.Load.Declared {
		return Estimate{}
	}
	n := float64(c.Scale.Stats.Datoms)
	var e Estimate
	switch {
	case c.measuredLoad > 0 && c.loadFrom != "":
		e = around(c.measuredLoad, modelSpread, 0, 0) // per datom from another scale
	case c.measuredLoad > 0:
		e = around(c.measuredLoad, measuredSpread, 0, 0)
	case c.StoreCost != nil:
		e = around(secs(n*c.StoreCost.SecondsPerDatom), modelSpread, 0, 0)
	default:
		e = Estimate{Lo: secs(n / loadRateHigh), Hi: secs(n / loadRateLow), Best: secs(n / (loadRateLow + loadRateHigh) * 2)}
	}
	if c.Plan == nil {
		return e
	}
	if max := c.Plan.Sampling.LoadMax; max > 0 {
		e.Lo, e.Hi, e.Best = min(e.Lo, max), min(e.Hi, max), min(e.Best, max)
	}
	return e
}

// afterLoadShare is the after-load SQL's share (with ANALYZE and VACUUM)
// of a load's time where no earlier run says: 80% to 90% on every backend
// at every scale of the release suite (docs/runs/2026-12-02-xs-to-l).
const afterLoadShare = 0.85

// LoadSplit is the load's estimate in two: streaming the datoms, then the
// after-load SQL with ANALYZE and VACUUM, for a progress line that counts
// down through both. The share comes from the earlier run's load
// (EstimateFrom) where there is one.
func (c *Cell) LoadSplit() (datoms, after time.Duration) {
	e := c.LoadEstimate().Best
	bc := c.Backend
	if len(bc.AfterLoad)+len(bc.Analyze)+len(bc.Vacuum) == 0 {
		return e, 0
	}
	share := afterLoadShare
	if c.measuredAfterShare > 0 {
		share = c.measuredAfterShare
	}
	after = time.Duration(float64(e) * share)
	return e - after, after
}

// LoadFrom is the scale of an earlier run whose load, per datom, the
// cell's load estimate extrapolates; "" when it is the cell's own scale's
// or a model's.
func (c *Cell) LoadFrom() string { return c.loadFrom }

// StoreEstimate is the size of the cell's store once loaded, in bytes,
// and where the figure comes from: the bytes per datom an earlier run's
// load left (EstimateFrom), at this scale or, scaled, another; else the
// driver's stated cost per datom. Zero when nothing says.
func (c *Cell) StoreEstimate() (bytes int64, from string) {
	n := float64(c.Scale.Stats.Datoms)
	switch {
	case !c.Backend.Load.Declared:
		return 0, ""
	case c.measuredBytesPerDatom > 0 && c.loadFrom != "":
		return int64(n * c.measuredBytesPerDatom), "per datom as measured at " + c.loadFrom
	case c.measuredBytesPerDatom > 0:
		return int64(n * c.measuredBytesPerDatom), "as measured"
	case c.StoreCost != nil && c.StoreCost.BytesPerDatom > 0:
		return int64(n * c.StoreCost.BytesPerDatom), "the driver's cost per datom"
	}
	return 0, ""
}

// PointEstimate is point i of the scenario: measured in an earlier run
// (EstimateFrom), or from its kind.
func (s *Scenario) PointEstimate(i int) Estimate {
	if i < len(s.measured) && s.measured[i] > 0 {
		return around(s.measured[i], measuredSpread, 0, 0)
	}
	return pointEstimate(s.Points[i])
}

// Estimate is the scenario's points.
func (s *Scenario) Estimate() Estimate {
	var e Estimate
	for i := range s.Points {
		e.add(s.PointEstimate(i))
	}
	return e
}

// Estimate is the cell: its load (when it loads) and its scenarios.
func (c *Cell) Estimate() Estimate {
	e := c.LoadEstimate()
	for _, s := range c.Scenarios {
		e.add(s.Estimate())
	}
	return e
}

// Estimate is the whole plan. Checks are not included: each runs a few
// calls, bounded by check_s.
func (p *Plan) Estimate() Estimate {
	var e Estimate
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			e.add(c.Estimate())
		}
	}
	return e
}

// estimateSource says where the plan's estimates come from, for its
// total line.
func (p *Plan) estimateSource() string {
	if p.history != nil {
		return "measured in " + p.history.Dir + " where the same point or load ran there, modelled elsewhere"
	}
	return "loads from each driver's measured cost per datom, points from their kinds' sampling"
}

// StoreBytes is the estimated size of every store the plan loads: what
// the disks (the data directory and the servers') hold once it ran.
func (p *Plan) StoreBytes() int64 {
	var n int64
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			b, _ := c.StoreEstimate()
			n += b
		}
	}
	return n
}
