package evidence

import (
	"fmt"

	"github.com/mentat-spec/mentat-spec/engine/compare"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The one ranking of what moved between two sets of points: two runs
// (compare), two variants of one run, two points of one run (a crossed
// threshold against the nearest passing point, a capacity's breaking
// point), two runs of history. Each caller selects its sides; the rules
// of what counts as moved are in why.go.

// NoEvidenceMoved is said where nothing ranked moved.
const NoEvidenceMoved = compare.NoEvidenceMoved

// Side is one side of a ranking: the evidence of the points it covers
// (its facts and splits, already selected) and each query's plan as its
// operator tree's lines (nil when not known).
type Side struct {
	Facts  []results.EvidenceRow
	Splits []results.SplitRow
	Plans  map[string][]string
}

// recorded reports whether the side has any evidence: facts, a split or
// a plan.
func (sd Side) recorded() bool { return len(sd.Facts)+len(sd.Splits)+len(sd.Plans) > 0 }

// Rank lists the evidence that moved from a to b, most telling first:
// the evidence that names a cause (the plan, a wait on something other
// than the CPU, WAL flushes per write, the cache, the database's work, WAL, rows), then, when
// noise is not "", the machine's noise, then where the time went
// (execution, planning, round trip): a part of the time that grew says
// where, not why. When only the time moved (and no noise is given), the
// first reason says the cause is undecided (Undecided) rather than let a
// part stand for a cause. None: no evidence moved.
func Rank(a, b Side, noise string) []string {
	o, n := gather(a), gather(b)
	reasons := diffPlans(a.Plans, b.Plans)
	waits, onCPU := waitReasons(o, n)
	if !onCPU {
		reasons = append(reasons, waits...)
	}
	reasons = append(reasons, counterReasons(o, n, "flush")...)
	reasons = append(reasons, counterReasons(o, n, "cache")...)
	reasons = append(reasons, counterReasons(o, n, "work")...)
	reasons = append(reasons, counterReasons(o, n, "wal")...)
	reasons = append(reasons, counterReasons(o, n, "rows")...)
	if noise != "" {
		reasons = append(reasons, "noise: "+noise)
	}
	parts := partReasons(o, n)
	if onCPU {
		parts = append(parts, waits...)
	}
	if len(reasons) == 0 && len(parts) > 0 {
		// Not "the noise did not differ": some callers do not weigh it.
		reasons = append(reasons, Undecided+": only the time moved; no plan, counter or wait event of the database did")
	}
	return append(reasons, parts...)
}

// pointRep is one point of a run, one of its reps (0: all of them).
type pointRep struct{ point, rep int }

// KeySide selects the evidence of the points of l that measured k
// (scenario, backend, scale and clients; evidence is per point, not per
// op) with plans, the queries' plans as read from dir (none: "").
func KeySide(l *Loaded, k results.Key, dir string) (Side, error) {
	return selectSide(l, dir, 0, func(s results.SplitRow) bool {
		return s.Scenario == k.Scenario && s.Backend == k.Backend && s.Scale == k.Scale && s.Clients == k.Clients
	}, k.Scenario, k.Backend, k.Scale)
}

// PointSide selects point (numbered from 1) of scenario in the (backend,
// scale) cell of l, with that point's analyzed plans from dir.
func PointSide(l *Loaded, scenario, backend, scale string, point int, dir string) (Side, error) {
	return selectSide(l, dir, point, func(s results.SplitRow) bool {
		return s.Scenario == scenario && s.Backend == backend && s.Scale == scale && s.Point == point
	}, scenario, backend, scale)
}

func selectSide(l *Loaded, dir string, point int, match func(results.SplitRow) bool, scenario, backend, scale string) (Side, error) {
	var sd Side
	points := map[pointRep]bool{}
	for _, s := range l.Splits {
		if match(s) {
			sd.Splits = append(sd.Splits, s)
			points[pointRep{s.Point, s.Rep}] = true
		}
	}
	for _, f := range l.Facts {
		if f.Scenario == scenario && f.Backend == backend && f.Scale == scale && points[pointRep{f.Point, f.Rep}] {
			sd.Facts = append(sd.Facts, f)
		}
	}
	if dir == "" {
		return sd, nil
	}
	plans, err := planShapes(dir, scale, backend, scenario, point)
	if err != nil {
		return sd, fmt.Errorf("evidence: plans of %s %s %s: %w", scenario, backend, scale, err)
	}
	sd.Plans = plans
	return sd, nil
}

// explainSides are the two sides of compare's point w: the point in each
// run with the run's plans, or, for two variants of one run (whose
// evidence is renamed to the pair's label), each backend's own plans.
func explainSides(w *compare.Why, oldRun, newRun *results.Run) (o, n Side, err error) {
	dirs, backends := [2]string{oldRun.Dir, newRun.Dir}, [2]string{w.Key.Backend, w.Key.Backend}
	if w.Backends[0] != "" {
		backends = w.Backends
	}
	var sides [2]Side
	for i, r := range []*results.Run{oldRun, newRun} {
		if sides[i], err = KeySide(Of(r), w.Key, ""); err != nil {
			return o, n, err
		}
		if sides[i].Plans, err = planShapes(dirs[i], w.Key.Scale, backends[i], w.Key.Scenario, 0); err != nil {
			return o, n, fmt.Errorf("evidence: plans of %s: %w", w.What, err)
		}
	}
	return sides[0], sides[1], nil
}

// PlanShapes is each query's plan of (scale, backend, scenario) in the
// results directory dir, taken at load, as its operator tree's lines:
// what a history keeps of the plans so that it can rank without the
// directory.
func PlanShapes(dir, scale, backend, scenario string) (map[string][]string, error) {
	return planShapes(dir, scale, backend, scenario, 0)
}
