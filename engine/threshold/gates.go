package threshold

import (
	"fmt"
	"sync"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Gates judges the plan's thresholds on what the kinds emit: each point's
// Hist (every rep merged, every client and worker in each) is judged once
// and gives a PASS or THRESHOLD line; the reps' histograms, merged as
// they come, let a threshold with abort end its scenario before the
// point's last rep.
type Gates struct {
	specs []Spec

	mu      sync.Mutex
	late    map[results.Key]int64 // windows' late calls, until the point's Hist
	sofar   map[results.Key]*soFar
	aborted map[scenarioCell]string // why the scenario stopped in the cell
	matched map[matchKey]bool
}

// matchKey is one threshold in one (scale, backend) cell.
type matchKey struct {
	spec           int
	backend, scale string
}

// soFar is a point's reps measured so far.
type soFar struct {
	intervals []results.Interval
	errors    int64
}

// scenarioCell is one scenario in one (scale, backend) cell.
type scenarioCell struct{ scenario, backend, scale string }

func NewGates(specs []Spec) *Gates {
	return &Gates{specs: specs, late: map[results.Key]int64{}, sofar: map[results.Key]*soFar{},
		aborted: map[scenarioCell]string{}, matched: map[matchKey]bool{}}
}

// Observe takes one record and returns the check lines it decides.
func (g *Gates) Observe(rec results.Record) []results.CheckLine {
	if g == nil || len(g.specs) == 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch r := rec.(type) {
	case results.WindowRow:
		g.late[r.Row.Key()] += r.Late
	case results.RepHist:
		g.rep(r)
	case results.Hist:
		return g.point(r)
	}
	return nil
}

// rep merges one rep into its point and ends the scenario when an
// aborting threshold is crossed by what was measured so far.
func (g *Gates) rep(r results.RepHist) {
	k := r.Row.Key()
	sf := g.sofar[k]
	if sf == nil {
		sf = &soFar{}
		g.sofar[k] = sf
	}
	sf.intervals = append(sf.intervals, r.Interval)
	sf.errors += r.Row.Errors
	sc := scenarioCell{r.Row.Scenario, r.Row.Backend, r.Row.Scale}
	for _, s := range g.specs {
		if !s.Abort || !s.Matches(r.Row) || g.aborted[sc] != "" {
			continue
		}
		detail, crossed := s.Judge(Observe(sf.intervals, sf.errors, g.late[k]))
		if crossed {
			g.aborted[sc] = fmt.Sprintf("threshold %s crossed after %d rep(s) at %d clients %s: %s", s.Name, len(sf.intervals), r.Row.Clients, r.Row.Op, detail)
		}
	}
}

// point judges every matching threshold on the point's merged histogram.
func (g *Gates) point(h results.Hist) []results.CheckLine {
	row := h.Row
	k := row.Key()
	late := g.late[k]
	delete(g.late, k)
	delete(g.sofar, k)
	sc := scenarioCell{row.Scenario, row.Backend, row.Scale}
	var out []results.CheckLine
	for i, s := range g.specs {
		if !s.Matches(row) {
			continue
		}
		g.matched[matchKey{i, row.Backend, row.Scale}] = true
		detail, crossed := s.Judge(Observe(h.Intervals, row.Errors, late))
		status := results.Pass
		if crossed {
			status = results.Threshold
			if s.Abort {
				if g.aborted[sc] == "" {
					g.aborted[sc] = fmt.Sprintf("threshold %s crossed at %d clients %s", s.Name, row.Clients, row.Op)
				}
				detail += "; abort: the scenario's remaining reps and points in this cell were not run"
			}
		}
		out = append(out, results.CheckLine{Status: status, Scenario: row.Scenario, Backend: row.Backend, Scale: row.Scale,
			Name: fmt.Sprintf("threshold %s (clients=%d %s)", s.Name, row.Clients, row.Op), Detail: detail})
	}
	return out
}

// AbortedBy says why a threshold ended the scenario in the cell ("" when
// none did).
func (g *Gates) AbortedBy(scenario, backend, scale string) string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.aborted[scenarioCell{scenario, backend, scale}]
}

// Unmatched are SKIP lines for the thresholds that no point of a cell
// the run measured in matched: a gate that judged nothing must not read
// as passed.
func (g *Gates) Unmatched(cells []Cell) []results.CheckLine {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []results.CheckLine
	for i, s := range g.specs {
		for _, c := range cells {
			if s.Backend != "" && s.Backend != c.Backend || s.Scale != "" && s.Scale != c.Scale || g.matched[matchKey{i, c.Backend, c.Scale}] {
				continue
			}
			scenario := s.Scenario
			if scenario == "" {
				scenario = "*"
			}
			out = append(out, results.CheckLine{Status: results.Skip, Scenario: scenario, Backend: c.Backend, Scale: c.Scale,
				Name: "threshold " + s.Name, Detail: "no measured point matched it (its scenario, clients or op did not run here)"})
		}
	}
	return out
}

// Cell is a (scale, backend) cell that ran.
type Cell struct{ Backend, Scale string }
