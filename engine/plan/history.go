package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// History is what an earlier run of the spec measured, for estimates:
// the seconds each point's reps took and each load with what followed it.
type History struct {
	Dir    string
	points map[cellScenario]measuredPoints
	loads  map[cellKey]results.LoadRow
}

type cellKey struct{ scale, backend string }

type cellScenario struct {
	cellKey
	scenario string
}

// measuredPoints are a scenario's reps in one cell: per rep, the
// longest stream at each client count.
type measuredPoints map[int]map[int]time.Duration // rep -> clients -> seconds

// byClients is the seconds at each client count over every rep, in
// ascending client counts: a sweep's points.
func (m measuredPoints) byClients() []time.Duration {
	sums := map[int]time.Duration{}
	for _, rep := range m {
		for n, d := range rep {
			sums[n] += d
		}
	}
	ns := make([]int, 0, len(sums))
	for n := range sums {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = sums[n]
	}
	return out
}

// total is the seconds of points points over every rep, when their
// streams run at more client counts than there are points (a writer x1
// beside readers x4): each point's rep takes its longest stream, the
// others overlap it, so a rep of the points takes the points longest
// client counts' seconds.
func (m measuredPoints) total(points int) time.Duration {
	var t time.Duration
	for _, rep := range m {
		ds := make([]time.Duration, 0, len(rep))
		for _, d := range rep {
			ds = append(ds, d)
		}
		slices.Sort(ds)
		slices.Reverse(ds)
		for _, d := range ds[:min(points, len(ds))] {
			t += d
		}
	}
	return t
}

// ReadHistory reads the raw.csv and loads.csv (if any) of results
// directory dir.
// A rep's seconds are a stream's calls over its throughput.
func ReadHistory(dir string) (*History, error) {
	raw, err := results.ReadRaw(dir)
	if err != nil {
		return nil, fmt.Errorf("estimate from %s: %w", dir, err)
	}
	loads, err := results.ReadLoads(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // a run that loaded nothing has no loads.csv
		return nil, fmt.Errorf("estimate from %s: %w", dir, err)
	}
	h := &History{Dir: dir, points: map[cellScenario]measuredPoints{}, loads: map[cellKey]results.LoadRow{}}
	for _, r := range raw {
		if r.Throughput <= 0 || r.Count <= 0 {
			continue
		}
		d := secs(float64(r.Count) / r.Throughput)
		cs := cellScenario{cellKey{r.Scale, r.Backend}, r.Scenario}
		if h.points[cs] == nil {
			h.points[cs] = measuredPoints{}
		}
		if h.points[cs][r.Rep] == nil {
			h.points[cs][r.Rep] = map[int]time.Duration{}
		}
		h.points[cs][r.Rep][r.Clients] = max(h.points[cs][r.Rep][r.Clients], d)
	}
	for _, l := range loads {
		h.loads[cellKey{l.Scale, l.Backend}] = l
	}
	return h, nil
}

// EstimateFrom makes the plan's estimates those h measured where the
// same scenario ran in the same cell, and the same load (a backend not
// loaded at the cell's scale there takes its load at the nearest scale,
// per datom, as an extrapolation with the model's spread): a scenario's
// points take the seconds of its client counts in order when it has as
// many points as it measured client counts, and share its measured
// total by their modelled estimates otherwise (a point whose streams
// run at different client counts). It reports how many scenarios and
// loads it matched, and how many loads it extrapolated.
func (p *Plan) EstimateFrom(h *History) (scenarios, loads, extrapolated int) {
	p.history = h
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			ck := cellKey{sp.Name, c.Backend.Name}
			l, ok := h.loads[ck]
			if !ok {
				// Not loaded at this scale there: the backend's load at
				// the scale nearest in datoms, per datom.
				l, ok = h.nearestLoad(c.Backend.Name, sp.Stats.Datoms)
			}
			if ok && c.Backend.Load.Declared && l.WallS > 0 && l.NDatoms > 0 && !l.Ceiling {
				after := deref(l.PostLoadS) + deref(l.AnalyzeS) + deref(l.VacuumS)
				s := l.WallS + after
				if after > 0 {
					c.measuredAfterShare = after / s
				}
				if sp.Stats.Datoms > 0 {
					s *= float64(sp.Stats.Datoms) / float64(l.NDatoms) // the dataset may have changed since
				}
				c.measuredLoad = secs(s)
				if l.SizeBytes != nil && *l.SizeBytes > 0 {
					c.measuredBytesPerDatom = float64(*l.SizeBytes) / float64(l.NDatoms)
				}
				if l.Scale != sp.Name {
					c.loadFrom = l.Scale
					extrapolated++
				} else {
					loads++
				}
			}
			for _, s := range c.Scenarios {
				mp, ok := h.points[cellScenario{ck, s.Name}]
				if !ok || len(s.Points) == 0 {
					continue
				}
				scenarios++
				if byClients := mp.byClients(); len(byClients) == len(s.Points) {
					s.measured = byClients
					continue
				}
				total := mp.total(len(s.Points))
				var model time.Duration
				for _, pt := range s.Points {
					model += pointEstimate(pt).Best
				}
				s.measured = make([]time.Duration, len(s.Points))
				for i, pt := range s.Points {
					share := 1 / float64(len(s.Points))
					if model > 0 {
						share = float64(pointEstimate(pt).Best) / float64(model)
					}
					s.measured[i] = time.Duration(share * float64(total))
				}
			}
		}
	}
	return scenarios, loads, extrapolated
}

// nearestLoad is backend's load at the scale whose datoms are nearest to
// n by ratio, ceilings left out; false when it loaded nowhere.
func (h *History) nearestLoad(backend string, n int64) (results.LoadRow, bool) {
	var best results.LoadRow
	bestDist, found := math.Inf(1), false
	for k, l := range h.loads {
		if k.backend != backend || l.Ceiling || l.NDatoms <= 0 || l.WallS <= 0 || n <= 0 {
			continue
		}
		d := math.Abs(math.Log(float64(n) / float64(l.NDatoms)))
		if d < bestDist || (d == bestDist && l.Scale < best.Scale) {
			best, bestDist, found = l, d, true
		}
	}
	return best, found
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
