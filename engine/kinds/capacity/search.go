package capacity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/stats"
)

// Prober measures one open-loop window at an offered rate.
type Prober func(ctx context.Context, rate float64) (Observation, error)

// Search finds the highest rate a service level holds at.
//
// The strategy, and why: a rate that holds says nothing about twice that
// rate, so the search first doubles from StartRate until a probe fails
// (or halves until one holds): the edge is bracketed in log2(capacity /
// start) probes whatever the scale (a failure there is probed twice: it
// bounds all that follows). It then bisects the bracket
// (geometrically, since rates differ by factors) until it is Resolution
// wide: log2(1/Resolution) probes more. One bisection's edge rests on a
// few noisy probes, so it re-brackets around the edge found, a few
// resolutions either side, and bisects again, Repeats times in all: each
// pass is an independent estimate of the edge, and their spread (Student's
// t over the passes, plus the bisection's own half-width) is the
// interval. A probe past the edge costs as much as one below it, so
// probes stop at MaxProbes or MaxTime whatever the search still wants.
type Search struct {
	Level                       ServiceLevel
	StartRate, MinRate, MaxRate float64
	// Resolution is the relative width of a bracket at which a bisection
	// stops (0.02: within 2%).
	Resolution float64
	// Repeats is how many bisections estimate the edge; 2 or more give an
	// interval from their spread.
	Repeats   int
	MaxProbes int
	MaxTime   time.Duration
	// ProbeTime is a probe's expected wall time at a rate (nil: none), so
	// that the time budget refuses a probe it cannot afford.
	ProbeTime func(rate float64) time.Duration
	// Integer makes the search's levels whole numbers (clients): each
	// bisection's estimate is then the highest level that held, not the
	// middle of its last bracket, and it stops when the bracket is one
	// apart.
	Integer bool
	// Judge, when set, judges a probe instead of Level.Judge (a clients
	// search: whether throughput still grows). It sees the probes so far.
	Judge func(o Observation, before []Probe) []string
}

// Search phases, as the probe log names them.
const (
	PhaseBracket = "bracket"
	PhaseBisect  = "bisect"
	PhaseEdge    = "edge" // a repeated bisection around the edge
)

// Probe is one measured window of a search.
type Probe struct {
	N     int    // from 1, in the order run
	Phase string // bracket, bisect or edge
	Pass  int    // the bisection it belongs to, from 1
	Observation
	Failed []string // the bounds broken; none: the rate held
}

// Held reports whether the probe's rate held the service level.
func (p Probe) Held() bool { return len(p.Failed) == 0 }

// Outcome is what a search found.
type Outcome struct {
	// Capacity is the mean of the edge estimates, Low and High its 95%
	// interval (High is +Inf when every probe held up to MaxRate).
	Capacity, Low, High float64
	// Estimates are the bisections' edges (the middle of each final
	// bracket), HalfWidths their brackets' half-widths.
	Estimates, HalfWidths []float64
	// LimitedBy names the bound that failed at the edge, or
	// LimitMaxRate / LimitMinRate when the search found no edge.
	LimitedBy string
	// Budget is set when the probe or time budget stopped the search
	// before it finished.
	Budget bool
	// Undecided says why the search cannot decide a capacity (LimitedBy
	// is then LimitUndecided and Capacity NaN): its passes' edges
	// disagree so much that their 95% interval reaches 0, or a pass found
	// nothing holding where another found an edge. "" when decided.
	Undecided string
	Probes    []Probe
	Elapsed   time.Duration
}

// Validate reports a search that cannot run.
func (s Search) Validate() error {
	switch {
	case !(s.MinRate > 0) || !(s.StartRate >= s.MinRate) || !(s.MaxRate >= s.StartRate):
		return fmt.Errorf("rates must satisfy 0 < min_rate <= start_rate <= max_rate (got %g, %g, %g)", s.MinRate, s.StartRate, s.MaxRate)
	case !(s.Resolution > 0 && s.Resolution < 1):
		return fmt.Errorf("resolution %v must be a fraction between 0 and 1", s.Resolution)
	case s.Repeats < 1:
		return fmt.Errorf("repeats %d must be at least 1", s.Repeats)
	case s.MaxProbes < 2:
		return fmt.Errorf("max_probes %d must be at least 2", s.MaxProbes)
	case s.MaxTime <= 0:
		return errors.New("the search's time budget must be positive")
	}
	return s.Level.Validate()
}

// MinProbes is the fewest probes a search that finds an edge runs: one
// pass's bracket of two with its failure confirmed and one bisection,
// then a re-bracket and bisection per repeat. Plan's lower estimate.
func (s Search) MinProbes() int {
	bisect := int(math.Ceil(math.Log2(1 / s.Resolution)))
	edge := int(math.Ceil(math.Log2(8))) + 2
	return min(3+bisect+(s.Repeats-1)*edge, s.MaxProbes)
}

// searchRun is one search in progress.
type searchRun struct {
	s     Search
	probe Prober
	began time.Time
	out   *Outcome
	pass  int
	// openHigh: a repeated pass held up to the max rate, so the interval
	// has no upper end.
	openHigh bool
}

// errBudget ends a search whose budget is spent.
var errBudget = errors.New("budget spent")

// at probes rate, or reports errBudget when the budget cannot afford it.
func (r *searchRun) at(ctx context.Context, rate float64, phase string) (Probe, error) {
	if len(r.out.Probes) >= r.s.MaxProbes {
		return Probe{}, errBudget
	}
	need := time.Duration(0)
	if r.s.ProbeTime != nil {
		need = r.s.ProbeTime(rate)
	}
	if time.Since(r.began)+need > r.s.MaxTime {
		return Probe{}, errBudget
	}
	o, err := r.probe(ctx, rate)
	if err != nil {
		return Probe{}, fmt.Errorf("probe at %g/s: %w", rate, err)
	}
	p := Probe{N: len(r.out.Probes) + 1, Phase: phase, Pass: r.pass, Observation: o}
	if r.s.Judge != nil {
		p.Failed = r.s.Judge(o, r.out.Probes)
	} else {
		p.Failed = r.s.Level.Judge(o)
	}
	r.out.Probes = append(r.out.Probes, p)
	return p, nil
}

// Run searches with probe and returns what it found. An error of a probe
// ends the search: the outcome holds the probes run so far.
func (s Search) Run(ctx context.Context, probe Prober) (Outcome, error) {
	if err := s.Validate(); err != nil {
		return Outcome{}, fmt.Errorf("capacity search: %w", err)
	}
	out := &Outcome{}
	r := &searchRun{s: s, probe: probe, began: time.Now(), out: out, pass: 1}
	err := r.run(ctx)
	out.Elapsed = time.Since(r.began)
	if errors.Is(err, errBudget) {
		out.Budget, err = true, nil
	}
	r.finish()
	return *out, err
}

func (r *searchRun) run(ctx context.Context) error {
	lo, hi, err := r.bracket(ctx)
	if err != nil || lo == 0 || math.IsInf(hi, 1) {
		return err
	}
	if err := r.bisect(ctx, lo, hi, PhaseBisect); err != nil {
		return err
	}
	for r.pass = 2; r.pass <= r.s.Repeats; r.pass++ {
		c := mean(r.out.Estimates)
		w := 4 * r.s.Resolution
		lo, hi, err := r.rebracket(ctx, c/(1+w), c*(1+w))
		switch {
		case err != nil:
			return err
		case lo == 0:
			// Nothing held down to the min rate this time: the pass's
			// edge is below its lowest probe, and the interval must say
			// so rather than rest on the passes that found one.
			r.out.Estimates = append(r.out.Estimates, 0)
			r.out.HalfWidths = append(r.out.HalfWidths, hi/2)
			return nil
		case math.IsInf(hi, 1):
			r.openHigh = true // everything held up to the max rate this time
			return nil
		}
		if err := r.bisect(ctx, lo, hi, PhaseEdge); err != nil {
			return err
		}
	}
	return nil
}

// bracket doubles from the start rate until a probe fails, or halves
// until one holds. lo 0: nothing held down to the min rate; hi +Inf:
// everything held up to the max rate.
func (r *searchRun) bracket(ctx context.Context) (lo, hi float64, err error) {
	s := r.s
	p, err := r.confirmed(ctx, s.StartRate)
	if err != nil {
		return 0, 0, err
	}
	if p.Held() {
		lo = s.StartRate
		for lo < s.MaxRate {
			rate := r.round(math.Min(2*lo, s.MaxRate))
			if p, err = r.confirmed(ctx, rate); err != nil {
				return lo, math.Inf(1), err
			}
			if !p.Held() {
				return lo, rate, nil
			}
			lo = rate
		}
		return lo, math.Inf(1), nil
	}
	hi = s.StartRate
	for hi > s.MinRate {
		rate := r.round(math.Max(hi/2, s.MinRate))
		if rate >= hi {
			break
		}
		if p, err = r.at(ctx, rate, PhaseBracket); err != nil {
			return 0, hi, err
		}
		if p.Held() {
			return rate, hi, nil
		}
		hi = rate
	}
	return 0, hi, nil
}

// confirmed probes rate in the bracket phase and probes a failed rate
// once more, keeping the second verdict: the bracket bounds every later
// probe of the pass, so one window a loaded machine stalled must not halve
// the range searched. A rate past the edge fails twice for one probe more
// per search.
func (r *searchRun) confirmed(ctx context.Context, rate float64) (Probe, error) {
	p, err := r.at(ctx, rate, PhaseBracket)
	if err != nil || p.Held() {
		return p, err
	}
	return r.at(ctx, rate, PhaseBracket)
}

// rebracket checks that lo holds and hi fails, moving the bracket down or
// up until they do, by a step that doubles each move: an edge that an
// earlier pass misplaced (a probe the machine stalled) is reached in a
// few probes.
func (r *searchRun) rebracket(ctx context.Context, lo, hi float64) (float64, float64, error) {
	s := r.s
	lo, hi = r.round(math.Max(lo, s.MinRate)), r.round(math.Min(hi, s.MaxRate))
	if hi <= lo {
		hi = r.round(lo * (1 + s.Resolution))
		if hi <= lo {
			hi = lo + 1
		}
	}
	step := math.Max(hi/lo, 1.01)
	if s.Integer {
		step = math.Max(step, 1.5) // a whole step up or down at every level
	}
	for {
		p, err := r.at(ctx, lo, PhaseEdge)
		if err != nil {
			return 0, 0, err
		}
		if p.Held() {
			break
		}
		if lo <= s.MinRate {
			return 0, lo, nil
		}
		hi, lo = lo, r.round(math.Max(lo/step, s.MinRate))
		step *= step
	}
	for {
		p, err := r.at(ctx, hi, PhaseEdge)
		if err != nil {
			return 0, 0, err
		}
		if !p.Held() {
			return lo, hi, nil
		}
		if hi >= s.MaxRate {
			return lo, math.Inf(1), nil
		}
		lo, hi = hi, r.round(math.Min(hi*step, s.MaxRate))
		step *= step
	}
}

// bisect narrows [lo, hi] (lo held, hi failed) to the resolution and
// records its middle as an estimate of the edge. A budget spent midway
// records the bracket reached, wider.
func (r *searchRun) bisect(ctx context.Context, lo, hi float64, phase string) error {
	var err error
	for hi/lo-1 > r.s.Resolution {
		mid := r.round(math.Sqrt(lo * hi))
		if mid <= lo || mid >= hi {
			break
		}
		var p Probe
		if p, err = r.at(ctx, mid, phase); err != nil {
			break
		}
		if p.Held() {
			lo = mid
		} else {
			hi = mid
		}
	}
	switch {
	case err != nil && !errors.Is(err, errBudget):
	case r.s.Integer:
		r.out.Estimates = append(r.out.Estimates, lo)
		r.out.HalfWidths = append(r.out.HalfWidths, 0)
	default:
		r.out.Estimates = append(r.out.Estimates, (lo+hi)/2)
		r.out.HalfWidths = append(r.out.HalfWidths, (hi-lo)/2)
	}
	return err
}

// finish sets the capacity, its interval and the limiting bound from the
// probes and estimates.
func (r *searchRun) finish() {
	out := r.out
	if len(out.Estimates) == 0 {
		r.noEdge()
		return
	}
	k := len(out.Estimates)
	m := mean(out.Estimates)
	half := mean(out.HalfWidths)
	if k > 1 {
		var ss float64
		for _, e := range out.Estimates {
			ss += (e - m) * (e - m)
		}
		sd := math.Sqrt(ss / float64(k-1))
		half += stats.StudentQuantile(0.975, float64(k-1)) * sd / math.Sqrt(float64(k))
	}
	out.Capacity, out.Low, out.High = m, math.Max(m-half, 0), m+half
	if r.openHigh {
		out.High = math.Inf(1)
	}
	out.LimitedBy = r.limitedBy(m)
	if why := r.undecided(m, half); why != "" {
		// A capacity whose interval reaches 0 is no capacity: the mean of
		// edges that far apart names a level no pass found.
		out.Capacity, out.LimitedBy, out.Undecided = math.NaN(), LimitUndecided, why
	}
}

// undecided says why the passes' edges, of mean m and interval half-width
// half, establish no capacity; "" when they do.
func (r *searchRun) undecided(m, half float64) string {
	est := r.out.Estimates
	unit := "/s"
	if r.s.Integer {
		unit = " clients"
	}
	edges := make([]string, len(est))
	for i, e := range est {
		edges[i] = strconv.FormatFloat(roundRate(e), 'f', -1, 64) + unit
	}
	for i, e := range est {
		if e == 0 {
			return fmt.Sprintf("pass %d found nothing holding down to %s%s, where the passes before it found the edge at %s: the service level held at no level every pass agrees on",
				i+1, strconv.FormatFloat(r.s.MinRate, 'f', -1, 64), unit, strings.Join(edges[:i], ", "))
		}
	}
	if m-half <= 0 {
		return fmt.Sprintf("the %d passes found the edge at %s: so far apart that their 95%% interval (%.1f ± %.1f) reaches 0", len(est), strings.Join(edges, ", "), m, half)
	}
	return ""
}

// noEdge sets the outcome of a search that never bracketed the edge.
func (r *searchRun) noEdge() {
	out := r.out
	var best float64
	for _, p := range out.Probes {
		if p.Held() && p.Rate > best {
			best = p.Rate
		}
	}
	switch {
	case best > 0 && !out.Budget:
		out.Capacity, out.Low, out.High, out.LimitedBy = best, best, math.Inf(1), LimitMaxRate
	case best > 0:
		out.Capacity, out.Low, out.High, out.LimitedBy = best, best, math.Inf(1), LimitBudget
	case out.Budget:
		// Spent before any level held: the capacity is unknown, not 0.
		out.Capacity, out.High, out.LimitedBy = math.NaN(), math.Inf(1), LimitBudget
	default:
		// Nothing held: the capacity is below the lowest level probed.
		out.High, out.LimitedBy = math.Inf(1), LimitMinRate
		for _, p := range out.Probes {
			out.High = math.Min(out.High, p.Rate)
		}
	}
}

// limitedBy is the bound broken most often by the failed probes near the
// edge c (within a few resolutions above it); ties go to the order of
// Judge. With no failed probe near, the nearest failed probe's first.
func (r *searchRun) limitedBy(c float64) string {
	count := map[string]int{}
	nearest, best := "", math.Inf(1)
	for _, p := range r.out.Probes {
		if p.Held() {
			continue
		}
		if p.Rate <= c*(1+8*r.s.Resolution) {
			for _, b := range p.Failed {
				count[b]++
			}
		}
		if d := math.Abs(p.Rate - c); d < best {
			nearest, best = p.Failed[0], d
		}
	}
	top, n := nearest, 0
	for _, b := range []string{BoundLatency, BoundErrors, BoundAchieved, BoundLate} {
		if count[b] > n {
			top, n = b, count[b]
		}
	}
	return top
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// round is a level as probed: a whole number for an integer search, else
// a rate of four significant digits (far finer than any resolution, and
// rates that read well in the logs).
func (r *searchRun) round(v float64) float64 {
	if r.s.Integer {
		return math.Max(math.Round(v), 1)
	}
	return roundRate(v)
}

// roundRate keeps four significant digits of a rate.
func roundRate(r float64) float64 {
	if r <= 0 {
		return r
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(r)))
	return math.Round(r*p) / p
}
