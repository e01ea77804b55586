package evidence

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/report"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Why a threshold was crossed, read from the loaded run: the crossed
// point against the nearest point of its sweep that passed the same
// threshold (the one ranking, Rank), else the point's own split and its
// notable evidence.

func init() { report.RegisterCheckExplainer(ThresholdWhy) }

// thresholdName is a threshold check's name: "threshold NAME (clients=N OP)".
var thresholdName = regexp.MustCompile(`^threshold (.+) \(clients=([0-9]+) (.+)\)$`)

// gatedPoint is the point a threshold check line judged.
type gatedPoint struct {
	threshold string
	clients   int
	op        string
}

func parseGated(l results.CheckLine) (gatedPoint, bool) {
	m := thresholdName.FindStringSubmatch(l.Name)
	if m == nil {
		return gatedPoint{}, false
	}
	n, err := strconv.Atoi(m[2])
	return gatedPoint{m[1], n, m[3]}, err == nil
}

// ThresholdWhy explains each THRESHOLD line of r whose point left
// evidence; a point without any is not explained.
func ThresholdWhy(r *results.Run) map[results.CheckLine]report.CheckWhy {
	l := Of(r)
	if len(l.Splits) == 0 {
		return nil
	}
	pts := pointsOf(r, l)
	out := map[results.CheckLine]report.CheckWhy{}
	for _, c := range r.Checks {
		if c.Status != results.Threshold {
			continue
		}
		g, ok := parseGated(c)
		if !ok {
			continue
		}
		point := pts.of(c, g)
		if point == 0 {
			continue
		}
		crossed := pointSide(r, l, c.Scenario, c.Backend, c.Scale, point)
		if len(crossed.Splits) == 0 {
			continue
		}
		if p, pg, ok := nearestPassed(r, pts, c, g); ok {
			passed := pointSide(r, l, c.Scenario, c.Backend, c.Scale, p)
			if len(passed.Splits) > 0 {
				out[c] = report.CheckWhy{Against: fmt.Sprintf("clients=%d %s, which passed", pg.clients, pg.op), Reasons: Rank(passed, crossed, "")}
				continue
			}
		}
		out[c] = report.CheckWhy{Against: "its own split (no point of its sweep passed)", Reasons: OwnReasons(crossed)}
	}
	return out
}

// pointSide is a point of r with its analyzed plans; plans that cannot
// be read leave it without (the reasons then say nothing of the plan).
func pointSide(r *results.Run, l *Loaded, scenario, backend, scale string, point int) Side {
	sd, err := PointSide(l, scenario, backend, scale, point, r.Dir)
	if err != nil {
		sd.Plans = nil
	}
	return sd
}

// points numbers each scenario's points in each cell as the run did.
type points map[[3]string]map[int]int // (scenario, backend, scale) -> clients -> point

// pointsOf numbers the points from 1: the client counts of a scenario's
// rows in the cell in the order first met, which is the order a sweep's
// points ran (an open loop's rate phases and a mix's ops are rows of one
// point). A number whose split has other clients is dropped (a run whose
// rows are not in point order).
func pointsOf(r *results.Run, l *Loaded) points {
	out := points{}
	for _, row := range r.Timings {
		if row.Op == results.OpCeiling {
			continue
		}
		k := [3]string{row.Scenario, row.Backend, row.Scale}
		if out[k] == nil {
			out[k] = map[int]int{}
		}
		if _, ok := out[k][row.Clients]; !ok {
			out[k][row.Clients] = len(out[k]) + 1
		}
	}
	for _, s := range l.Splits {
		byClients := out[[3]string{s.Scenario, s.Backend, s.Scale}]
		for c, p := range byClients {
			if p == s.Point && c != s.Clients {
				delete(byClients, c)
			}
		}
	}
	return out
}

// of is the point c's line judged; 0 when not known.
func (p points) of(c results.CheckLine, g gatedPoint) int {
	return p[[3]string{c.Scenario, c.Backend, c.Scale}][g.clients]
}

// nearestPassed is the point of c's scenario in its cell that passed the
// same threshold nearest to c's: the fewest clients away, a lower count
// before a higher one.
func nearestPassed(r *results.Run, pts points, c results.CheckLine, g gatedPoint) (int, gatedPoint, bool) {
	type cand struct {
		point int
		g     gatedPoint
	}
	var cs []cand
	for _, o := range r.Checks {
		if o.Status != results.Pass || o.Scenario != c.Scenario || o.Backend != c.Backend || o.Scale != c.Scale {
			continue
		}
		og, ok := parseGated(o)
		if !ok || og.threshold != g.threshold || og.clients == g.clients {
			continue // another op of the crossed point itself is no point to set it against
		}
		if p := pts.of(o, og); p > 0 {
			cs = append(cs, cand{p, og})
		}
	}
	if len(cs) == 0 {
		return 0, gatedPoint{}, false
	}
	sort.SliceStable(cs, func(i, j int) bool {
		di, dj := abs(cs[i].g.clients-g.clients), abs(cs[j].g.clients-g.clients)
		if di != dj {
			return di < dj
		}
		return cs[i].g.clients < cs[j].g.clients
	})
	return cs[0].point, cs[0].g, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// notableWait is the least share of the active sessions a wait event
// must have to be named in a point's own reasons.
const notableWait = 0.1

// OwnReasons are a point's reasons with nothing to set it against: which
// part of its observed latency dominates, then its notable evidence
// (wait events, blocks read against hit, the database's work per call,
// the plan).
func OwnReasons(sd Side) []string {
	pe := gather(sd)
	var out []string
	if s := splitSay(pe); s != "" {
		out = append(out, s)
	}
	if len(pe.waits) > 0 {
		type w struct {
			name  string
			share float64
		}
		var ws []w
		for name, share := range pe.waits {
			if share >= notableWait {
				ws = append(ws, w{strings.TrimPrefix(name, "wait:"), share})
			}
		}
		sort.Slice(ws, func(i, j int) bool {
			if ws[i].share != ws[j].share {
				return ws[i].share > ws[j].share
			}
			return ws[i].name < ws[j].name
		})
		var parts []string
		for _, x := range ws {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", x.name, 100*x.share))
		}
		if len(parts) > 0 {
			out = append(out, "wait events (share of active sessions): "+strings.Join(parts, ", "))
		}
	}
	for _, group := range []string{"cache", "work"} {
		var parts []string
		for _, c := range counters {
			if v, ok := perCall(pe, pe, c.name); ok && c.group == group && v > 0 {
				parts = append(parts, fmt.Sprintf("%s %s", c.say, num(v)))
			}
		}
		if len(parts) > 0 {
			out = append(out, group+" per call: "+strings.Join(parts, ", "))
		}
	}
	var queries []string
	for q := range sd.Plans {
		queries = append(queries, q)
	}
	sort.Strings(queries)
	for _, q := range queries {
		if ls := sd.Plans[q]; len(ls) > 0 {
			if len(ls) > 3 {
				ls = append(ls[:3:3], "...")
			}
			out = append(out, fmt.Sprintf("plan (%s): %s", q, strings.Join(ls, "; ")))
		}
	}
	return out
}

// splitSay says which part of the observed latency dominates, each part
// with its share; "" when the observed latency is unknown.
func splitSay(pe pointEvidence) string {
	if math.IsNaN(pe.observed) || pe.observed <= 0 {
		return ""
	}
	names := append(partNames[:], "rest")
	vals := append(pe.parts[:], math.NaN())
	rest, unknown := pe.observed, []string{}
	for i, v := range pe.parts {
		if math.IsNaN(v) {
			unknown = append(unknown, partNames[i])
			continue
		}
		rest -= v
	}
	vals[3] = math.Max(rest, 0)
	top := -1
	var parts []string
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		if top < 0 || v > vals[top] {
			top = i
		}
		parts = append(parts, fmt.Sprintf("%s %s ms (%.0f%%)", names[i], report.FormatMs(v), 100*v/pe.observed))
	}
	restSay := names[top]
	if top == 3 && len(unknown) > 0 {
		restSay = "rest (with " + strings.Join(unknown, ", ") + ", not measured)"
	}
	return fmt.Sprintf("%s dominates the observed %s ms per call: %s", restSay, report.FormatMs(pe.observed), strings.Join(parts, ", "))
}
