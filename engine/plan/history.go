package plan

import (
	"fmt"
	"slices"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// History is what an earlier run of the spec measured, for estimates:
// the seconds each point's reps took and each load with what followed it.
type History struct {
	Dir string
	// scenario -> the seconds of its points in one cell, one entry per
	// client count in ascending order (a sweep's points), and the total.
	points map[cellScenario]measuredPoints
	loads  map[cellKey]results.LoadRow
}

type cellKey struct{ scale, backend string }

type cellScenario struct {
	cellKey
	scenario string
}

type measuredPoints struct {
	byClients []time.Duration // ascending client counts
	total     time.Duration   // every rep, streams of one rep overlapping
}

// ReadHistory reads the raw.csv and loads.csv of results directory dir.
// A rep's seconds are its calls over its throughput; the streams of one
// rep (a writer and readers) run at once, so the rep takes the longest
// of them.
func ReadHistory(dir string) (*History, error) {
	raw, err := results.ReadRaw(dir)
	if err != nil {
		return nil, fmt.Errorf("estimate from %s: %w", dir, err)
	}
	loads, err := results.ReadLoads(dir)
	if err != nil {
		return nil, fmt.Errorf("estimate from %s: %w", dir, err)
	}
	h := &History{Dir: dir, points: map[cellScenario]measuredPoints{}, loads: map[cellKey]results.LoadRow{}}
	type repKey struct {
		cellScenario
		clients, rep int
	}
	type scenRep struct {
		cellScenario
		rep int
	}
	byClients := map[repKey]time.Duration{} // the longest stream of a point's rep
	byRep := map[scenRep]time.Duration{}    // the longest stream of any point's rep
	for _, r := range raw {
		if r.Throughput <= 0 || r.Count <= 0 {
			continue
		}
		d := secs(float64(r.Count) / r.Throughput)
		cs := cellScenario{cellKey{r.Scale, r.Backend}, r.Scenario}
		k := repKey{cs, r.Clients, r.Rep}
		byClients[k] = max(byClients[k], d)
		sr := scenRep{cs, r.Rep}
		byRep[sr] = max(byRep[sr], d)
	}
	clients := map[cellScenario]map[int]time.Duration{}
	for k, d := range byClients {
		if clients[k.cellScenario] == nil {
			clients[k.cellScenario] = map[int]time.Duration{}
		}
		clients[k.cellScenario][k.clients] += d
	}
	for cs, m := range clients {
		ns := make([]int, 0, len(m))
		for n := range m {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		var mp measuredPoints
		for _, n := range ns {
			mp.byClients = append(mp.byClients, m[n])
		}
		h.points[cs] = mp
	}
	for k, d := range byRep {
		mp := h.points[k.cellScenario]
		mp.total += d
		h.points[k.cellScenario] = mp
	}
	for _, l := range loads {
		h.loads[cellKey{l.Scale, l.Backend}] = l
	}
	return h, nil
}

// EstimateFrom makes the plan's estimates those h measured where the
// same scenario ran in the same cell, and the same load: a scenario's
// points take the seconds of its client counts in order when it has as
// many points as it measured client counts, and share its measured
// total by their modelled estimates otherwise (a point whose streams
// run at different client counts). It reports how many scenarios and
// loads it matched.
func (p *Plan) EstimateFrom(h *History) (scenarios, loads int) {
	p.history = h
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			ck := cellKey{sp.Name, c.Backend.Name}
			if l, ok := h.loads[ck]; ok && c.Backend.Load.Declared && l.WallS > 0 {
				s := l.WallS + deref(l.PostLoadS) + deref(l.AnalyzeS) + deref(l.VacuumS)
				if l.NDatoms > 0 && sp.Stats.Datoms > 0 {
					s *= float64(sp.Stats.Datoms) / float64(l.NDatoms) // the dataset may have changed since
				}
				c.measuredLoad = secs(s)
				loads++
			}
			for _, s := range c.Scenarios {
				mp, ok := h.points[cellScenario{ck, s.Name}]
				if !ok || len(s.Points) == 0 {
					continue
				}
				scenarios++
				if len(mp.byClients) == len(s.Points) {
					s.measured = mp.byClients
					continue
				}
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
					s.measured[i] = time.Duration(share * float64(mp.total))
				}
			}
		}
	}
	return scenarios, loads
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
