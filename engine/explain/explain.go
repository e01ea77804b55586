// Package explain writes what the database plans for a cell's queries
// into plans/: before any point, each query's plan by the driver's
// EXPLAIN or the backend's own explain statement; after a point with
// evidence, what one more execution did (EXPLAIN ANALYZE). Explaining
// may run a query, so each is explained within its ceiling. It knows no
// plan and no scenario kind: the runner hands it the queries bound and
// the call to explain.
package explain

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Query is one query of the cell as it is explained.
type Query struct {
	Name  string
	SQL   string   // bound for the backend
	Names []string // its parameters, in marker order
	Args  []any    // the call explained
	// Text is what the explain statement binds as :q: the query's edn,
	// or its SQL as written.
	Text string
	Cap  time.Duration // explaining may run it: at most this long
}

// Cell is where one (scale, backend) cell's plans come from and go.
type Cell struct {
	Scale, Backend string
	Store          drivers.Backend
	Admin          drivers.Session // runs the explain statement
	// Statement is the backend's own explain statement ("": the
	// driver's Explainer, if it has one).
	Statement string
	Dir       *results.Dir
}

// Scenario is a scenario's name and the queries it runs.
type Scenario struct {
	Name    string
	Queries []string
}

// Plans writes the plan of each query each scenario runs into plans/,
// named after the scenario and the query, with the SQL and the
// parameters the plan was made with. A query is explained once; query
// returns it, false for one that cannot be (a parameter left to the
// checks).
func (c Cell) Plans(ctx context.Context, scenarios []Scenario, query func(name string) (Query, bool)) {
	ex, ok := c.Store.(drivers.Explainer)
	if c.Statement != "" {
		ok = true // the backend's own statement explains
	}
	if !ok {
		return
	}
	type explained struct {
		text, ext, sql string
		args           []any
	}
	done := map[string]explained{}
	for _, sc := range scenarios {
		for _, n := range sc.Queries {
			e, ok := done[n]
			if !ok {
				q, ok := query(n)
				if !ok {
					continue
				}
				// Some drivers explain by running the query (DuckDB's EXPLAIN
				// ANALYZE): a query past the ceiling must not stall the run here.
				ectx, cancel := context.WithTimeout(ctx, q.Cap)
				var text string
				var err error
				if c.Statement != "" {
					text, err = Statement(ectx, c.Admin, c.Store.Placeholder, c.Statement, q)
				} else {
					text, err = ex.Explain(ectx, q.SQL, q.Args)
				}
				cancel()
				if err != nil {
					text = "EXPLAIN failed: " + err.Error()
				}
				e = explained{text: text, ext: ext(text), sql: q.SQL, args: q.Args}
				done[n] = e
			}
			w, err := c.Dir.Plan(results.ScenarioPlanName(c.Scale, c.Backend, sc.Name, n, e.ext))
			if err != nil {
				continue
			}
			io.WriteString(w, results.FormatPlan(e.sql, e.args, e.text, e.ext))
			w.Close()
		}
	}
}

// Analyze writes, after point (from 0) of scenario has run its timed
// reps, what one more execution of each of its queries did by the
// database's own account (plans/<scale>-<backend>-<scenario>-pNN-<query>-analyze.<ext>):
// the plan with actual rows and buffers, or per-operator times. A
// backend that cannot says nothing.
func (c Cell) Analyze(ctx context.Context, scenario string, point int, queries []Query) error {
	ax, ok := c.Store.(drivers.AnalyzeExplainer)
	if !ok {
		return nil
	}
	for _, q := range queries {
		actx, cancel := context.WithTimeout(ctx, q.Cap)
		text, err := ax.ExplainAnalyze(actx, q.SQL, q.Args)
		cancel()
		if err != nil {
			text = "EXPLAIN ANALYZE failed: " + err.Error()
		}
		e := ext(text)
		w, err := c.Dir.Plan(results.ScenarioPlanName(c.Scale, c.Backend, scenario,
			fmt.Sprintf("p%02d-%s-analyze", point+1, q.Name), e))
		if err != nil {
			return err
		}
		io.WriteString(w, results.FormatPlan(q.SQL, q.Args, text, e))
		w.Close()
	}
	return nil
}

// ext is the plan file's extension: json for a plan in JSON.
func ext(text string) string {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
		return "json"
	}
	return "txt"
}
