package history

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/changepoint"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Metric is a measurement a series follows, read from every rep.
type Metric struct {
	Name          string
	Unit          string
	HigherIsWorse bool
	Of            func(Rep) float64
}

// Metrics are the series kept per point: the median and the tail of the
// latency, and the throughput.
var Metrics = []Metric{
	{"p50_ms", "ms", true, func(r Rep) float64 { return r.P50Ms }},
	{"p99_ms", "ms", true, func(r Rep) float64 { return r.P99Ms }},
	{"throughput_ops_s", "ops/s", false, func(r Rep) float64 { return r.Throughput }},
}

// SeriesKey is what makes two runs' measurements one series. Each field
// splits a series: the metric, the point (scenario, backend, scale,
// clients, op), the machine (instance type, CPU model and count, memory,
// platform: machineKeys) and the scenario's fingerprint (its definition,
// its queries, its dataset). Variables, settings and the backend's
// definition do not: a deliberate change of them is what a history is
// kept to see, and it is named at the change point it makes.
type SeriesKey struct {
	Metric string
	results.Key
	MachineFP  string
	ScenarioFP string
}

func (k SeriesKey) String() string {
	return fmt.Sprintf("%s %s %s clients=%d %s %s", k.Scenario, k.Backend, k.Scale, k.Clients, k.Op, k.Metric)
}

// Series is one measurement over the runs that made it, oldest first.
type Series struct {
	Key     SeriesKey
	Metric  Metric
	Machine string
	Runs    []Run
	Points  []Point
	Changes []ChangePoint
	// Hosts are the machines (env.txt's hostname) whose runs make the
	// series, sorted: a series is per kind of machine, and several
	// machines of a kind (CI runners, a team's boxes) feed one.
	Hosts []string
}

// Values are the metric's value of every rep of run i.
func (s *Series) Values(i int) []float64 {
	out := make([]float64, len(s.Points[i].Reps))
	for j, r := range s.Points[i].Reps {
		out[j] = s.Metric.Of(r)
	}
	return out
}

// ChangePoint is a change found in a series, at Run (the first run of
// the new level), after Before (the last run of the old one).
type ChangePoint struct {
	changepoint.Change
	Before, Run Run
	// Regression says the change is for the worse (slower, or fewer
	// operations per second).
	Regression bool
	// Changed is what differs between Before and Run besides the
	// revision: variables, settings, versions, the backend's definition.
	Changed []Difference
	// Noise is the machine's noise on both sides (the other processes'
	// mean share of the CPU over the runs before and after, from env.txt's
	// noise_other_cpu_pct), "" when the runs did not record it: a level
	// that moved with the neighbours' load reads differently from one
	// that moved on a quiet machine.
	Noise string
	// Why is the evidence that moved between Before and Run at the
	// series' point, ranked (evidence.Rank); none: no evidence moved.
	// WhyKept is false when the history keeps no evidence of either run
	// (imported before it kept evidence, or recorded none).
	Why     []string
	WhyKept bool
}

// Revisions is the revision range the change happened in.
func (c ChangePoint) Revisions() string {
	b, a := shortRev(c.Before.Revision), shortRev(c.Run.Revision)
	switch {
	case b == "" && a == "":
		return "unknown revisions"
	case b == a:
		return "same revision " + a
	}
	return orUnknown(b) + ".." + orUnknown(a)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// shortRev shortens a git revision to 12 characters, keeping what
// follows it (" (modified: ...)").
func shortRev(r string) string {
	head, rest, _ := strings.Cut(r, " ")
	if len(head) == 40 {
		head = head[:12]
	}
	if rest != "" {
		return head + " " + rest
	}
	return head
}

// Difference is one thing that differs between two runs.
type Difference struct{ What, Before, After string }

// Analysis is the history read as series with their change points.
type Analysis struct {
	Runs   []Run
	Series []*Series
	// Hosts are the machines every run came from, sorted; Kinds the
	// number of kinds of machine among them.
	Hosts []string
	Kinds int
}

// hostOf is the machine a run's env.txt names, "" when it names none.
func hostOf(env map[string]string) string {
	if h := factValue(env["hostname"]); h != "unknown" {
		return h
	}
	return ""
}

// sortedKeys are m's non-empty keys, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Analyze reads every run and finds the change points of every series.
func (s *Store) Analyze(opt changepoint.Options) (*Analysis, error) {
	// One snapshot for the three reads: a run added meanwhile is in all
	// of them or in none.
	var runs []Run
	var pts []storedPoint
	var envs map[string]map[string]string
	err := s.read(func(q queryer) (err error) {
		if runs, err = s.runsIn(q); err != nil {
			return err
		}
		if pts, err = s.points(q); err != nil {
			return err
		}
		envs, err = s.envs(q)
		return err
	})
	if err != nil {
		return nil, err
	}
	order := make(map[string]int, len(runs))
	for i, r := range runs {
		order[r.ID] = i
	}
	slices.SortStableFunc(pts, func(a, b storedPoint) int { return cmp.Compare(order[a.runID], order[b.runID]) })
	a := &Analysis{Runs: runs}
	hosts, kinds := map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		hosts[hostOf(envs[r.ID])] = true
		kinds[r.MachineFP] = true
	}
	a.Hosts, a.Kinds = sortedKeys(hosts), len(kinds)
	byKey := map[SeriesKey]*Series{}
	seriesHosts := map[*Series]map[string]bool{}
	for _, p := range pts {
		if p.Op == "ceiling" {
			continue // a skipped scenario's first call, not a measurement
		}
		i, ok := order[p.runID]
		if !ok {
			return nil, fmt.Errorf("history: a point of run %s, which the history does not list", p.runID)
		}
		run := runs[i]
		for _, m := range Metrics {
			k := SeriesKey{Metric: m.Name, Key: p.Key, MachineFP: run.MachineFP, ScenarioFP: p.ScenarioFP}
			sr := byKey[k]
			if sr == nil {
				sr = &Series{Key: k, Metric: m, Machine: run.Machine}
				byKey[k] = sr
				a.Series = append(a.Series, sr)
			}
			sr.Runs = append(sr.Runs, run)
			sr.Points = append(sr.Points, p.Point)
			if seriesHosts[sr] == nil {
				seriesHosts[sr] = map[string]bool{}
			}
			seriesHosts[sr][hostOf(envs[run.ID])] = true
		}
	}
	for sr, h := range seriesHosts {
		sr.Hosts = sortedKeys(h)
	}
	// A step found one run beside a deliberate change (a variable, a
	// setting, the backend's definition) is placed at it: the cause is
	// the better witness. Whether a pair of runs differs is asked once
	// per pair, backend and scale, not once per series.
	changed := map[[4]string]bool{}
	deliberate := func(sr *Series, i int) bool {
		if i < 1 || i >= len(sr.Runs) {
			return false
		}
		if sr.Points[i-1].BackendFP != sr.Points[i].BackendFP {
			return true
		}
		k := [4]string{sr.Runs[i-1].ID, sr.Runs[i].ID, sr.Key.Backend, sr.Key.Scale}
		d, ok := changed[k]
		if !ok {
			d = len(differences(envs[k[0]], envs[k[1]], k[2], k[3])) > 0
			changed[k] = d
		}
		return d
	}
	for _, sr := range a.Series {
		groups := make([][]float64, len(sr.Runs))
		for i := range groups {
			groups[i] = sr.Values(i)
		}
		sopt := opt
		sopt.Known = func(i int) bool { return deliberate(sr, i) }
		for _, c := range changepoint.Detect(groups, sopt) {
			cp := ChangePoint{Change: c, Before: sr.Runs[c.Index-1], Run: sr.Runs[c.Index]}
			cp.Regression = (c.Ratio > 1) == sr.Metric.HigherIsWorse
			cp.Changed = differences(envs[cp.Before.ID], envs[cp.Run.ID], sr.Key.Backend, sr.Key.Scale)
			if b, a := sr.Points[c.Index-1].BackendFP, sr.Points[c.Index].BackendFP; b != a {
				cp.Changed = append(cp.Changed, Difference{What: "backend " + sr.Key.Backend + " definition (setup, after_load, settings)",
					Before: shortFP(b), After: shortFP(a)})
			}
			cp.Noise = noiseOf(envs, sr.Runs[c.Start:c.Index], sr.Runs[c.Index:c.End])
			sr.Changes = append(sr.Changes, cp)
		}
	}
	slices.SortFunc(a.Series, func(x, y *Series) int {
		return cmp.Or(cmp.Compare(x.Key.Scenario, y.Key.Scenario), cmp.Compare(x.Key.Backend, y.Key.Backend),
			cmp.Compare(x.Key.Scale, y.Key.Scale), cmp.Compare(x.Key.Clients, y.Key.Clients), cmp.Compare(x.Key.Op, y.Key.Op),
			cmp.Compare(metricRank(x.Key.Metric), metricRank(y.Key.Metric)), cmp.Compare(x.Machine, y.Machine),
			cmp.Compare(x.Key.ScenarioFP, y.Key.ScenarioFP))
	})
	if err := s.explainChanges(a); err != nil {
		return nil, err
	}
	return a, nil
}

func metricRank(name string) int {
	return slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
}

func shortFP(fp string) string {
	if fp == "" {
		return "(not recorded)"
	}
	return fp[:min(12, len(fp))]
}

// Changes are every change point, in series order.
func (a *Analysis) Changes() []SeriesChange {
	var out []SeriesChange
	for _, s := range a.Series {
		for _, c := range s.Changes {
			out = append(out, SeriesChange{s, c})
		}
	}
	return out
}

// SeriesChange is a change point with its series.
type SeriesChange struct {
	Series *Series
	ChangePoint
}

// At returns the change points whose first run is the run id.
func (a *Analysis) At(id string) []SeriesChange {
	var out []SeriesChange
	for _, c := range a.Changes() {
		if c.Run.ID == id {
			out = append(out, c)
		}
	}
	return out
}

// differences lists the env.txt entries that differ between two runs and
// can change a measurement of backend at scale: variables, the spec, the
// dataset, the sampling, versions, the kernel, and the backend's driver,
// version, settings (those the spec names and, for PostgreSQL and DuckDB,
// every one in force), compile options and driver options (where the
// store lives aside).
func differences(before, after map[string]string, backend, scale string) []Difference {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	var out []Difference
	for k := range keys {
		if !reportedKey(k, backend, scale) {
			continue
		}
		b, inB := before[k]
		a, inA := after[k]
		b, a = envValue(k, b), envValue(k, a)
		if inB && inA && a == b {
			continue
		}
		if !inB {
			b = "(absent)"
		}
		if !inA {
			a = "(absent)"
		}
		out = append(out, Difference{What: k, Before: b, After: a})
	}
	slices.SortFunc(out, func(x, y Difference) int { return cmp.Compare(x.What, y.What) })
	return out
}

// reportedKey mirrors what compare counts as making two runs differ
// (kept here so this package does not depend on compare's), with the
// kernel and Go version added: on one machine these are what changes
// besides the build.
func reportedKey(k, backend, scale string) bool {
	switch k {
	case "spec_sha256", "dataset", "scales", "sampling", "mentat_spec_version", "kernel", "go":
		return true
	}
	if strings.HasPrefix(k, "var.") || k == "dataset."+scale {
		return true
	}
	rest, ok := strings.CutPrefix(k, "backend."+backend+"."+scale+".")
	if !ok {
		return false
	}
	if opt, ok := strings.CutPrefix(rest, "option."); ok {
		return opt != "path" && opt != "dsn" && opt != "database"
	}
	if _, detail := drivers.Default.Detailed(rest); detail {
		return true // the drivers say which lines are a database's whole configuration
	}
	return rest == "driver" || rest == "version" || strings.HasPrefix(rest, "setting.")
}

// envValue drops where a value came from: "true (from -var)" equals
// "true (from default)", "6.1.0 (from /proc/...)" its value.
func envValue(k, v string) string {
	if strings.HasPrefix(k, "var.") || k == "kernel" || k == "go" {
		if i := strings.LastIndex(v, " (from "); i >= 0 && strings.HasSuffix(v, ")") {
			return v[:i]
		}
	}
	return v
}

// noiseOf describes the other processes' mean CPU share, and the steal
// the hypervisor took, over the runs before and after a change: each
// part "" when either side recorded none.
func noiseOf(envs map[string]map[string]string, before, after []Run) string {
	mean := func(runs []Run, key string) (float64, bool) {
		var sum float64
		n := 0
		for _, r := range runs {
			if v, err := strconv.ParseFloat(envs[r.ID][key], 64); err == nil && !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		return sum / float64(max(n, 1)), n > 0
	}
	var parts []string
	for _, p := range []struct{ key, say string }{
		{"noise_other_cpu_pct", "other processes took %.0f%% of the CPU before, %.0f%% after"},
		{"noise_steal_pct", "steal %.0f%% before, %.0f%% after"},
	} {
		b, okB := mean(before, p.key)
		a, okA := mean(after, p.key)
		if okB && okA {
			parts = append(parts, fmt.Sprintf(p.say, b, a))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + " (mean over the runs)"
}
