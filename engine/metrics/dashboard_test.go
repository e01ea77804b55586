package metrics

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// dashboardFile is the Grafana dashboard of examples/grafana.
const dashboardFile = "../../examples/grafana/mentat-spec.json"

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	Title  string `json:"title"`
	UID    string `json:"uid"`
	Panels []struct {
		ID      int    `json:"id"`
		Title   string `json:"title"`
		Type    string `json:"type"`
		GridPos *struct {
			W, H int
		} `json:"gridPos"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

var metricName = regexp.MustCompile(`\bmentat_spec_[a-z_]+`)

// TestDashboard: the dashboard is well-formed JSON, every panel queries
// something, and every metric it names is one the exporter serves (a
// histogram's _bucket, _sum and _count included).
func TestDashboard(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("%s: no title, uid or panels", dashboardFile)
	}
	served := servedNames(t)
	ids := map[int]bool{}
	used := map[string]bool{}
	check := func(where, expr string) {
		for _, m := range metricName.FindAllString(expr, -1) {
			used[m] = true
			if !served[m] {
				t.Errorf("%s queries %s, which the exporter does not serve", where, m)
			}
		}
	}
	for _, p := range d.Panels {
		if ids[p.ID] || p.GridPos == nil || p.GridPos.W == 0 || len(p.Targets) == 0 {
			t.Errorf("panel %q: duplicate id, no size or no query", p.Title)
		}
		ids[p.ID] = true
		for _, tg := range p.Targets {
			if tg.Expr == "" {
				t.Errorf("panel %q: a target without a query", p.Title)
			}
			check("panel "+p.Title, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		check("variable "+v.Name, v.Definition)
	}
	for _, want := range []string{Calls, Errors, Late, Latency + "_bucket", Points, PointsDone, EstimateDone} {
		if !used[want] {
			t.Errorf("the dashboard shows no %s", want)
		}
	}
}

// servedNames are the metric names an exporter with one point and a
// running task serves, as a scraper of the text format sees them.
func servedNames(t *testing.T) map[string]bool {
	t.Helper()
	e := New()
	r := row("lookup", "read", 1, 3, 0)
	_ = e.Emit(results.Raw(r))
	_ = e.Emit(results.RepHist{Row: r, Interval: results.Interval{Hist: histOf(3, 1000)}})
	e.Begin("task", time.Second, func() (int64, int64) { return 1, 0 })
	mfs, err := e.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, mf := range mfs {
		n := mf.GetName()
		out[n] = true
		if n == Latency {
			out[n+"_bucket"], out[n+"_sum"], out[n+"_count"] = true, true, true
		}
	}
	for _, n := range Names {
		if !out[n] {
			t.Errorf("Names lists %s, which the exporter does not serve", n)
		}
	}
	if len(mfs) != len(Names) {
		t.Errorf("the exporter serves %d metrics, Names lists %d", len(mfs), len(Names))
	}
	return out
}
