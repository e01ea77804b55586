package threshold

import (
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Resumed takes the check lines the interrupted part of a resumed run
// wrote: a threshold judged there matched its cell (no SKIP for it at the
// end), and one with abort that it crossed still ends its scenario.
func (g *Gates) Resumed(lines []results.CheckLine) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, l := range lines {
		if l.Status != results.Pass && l.Status != results.Threshold {
			continue
		}
		name, ok := strings.CutPrefix(l.Name, "threshold ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " (")
		for i, s := range g.specs {
			if s.Name != name {
				continue
			}
			g.matched[matchKey{i, l.Backend, l.Scale}] = true
			sc := scenarioCell{l.Scenario, l.Backend, l.Scale}
			if s.Abort && l.Status == results.Threshold && g.aborted[sc] == "" {
				g.aborted[sc] = "threshold " + s.Name + " crossed before the resume"
			}
		}
	}
}
