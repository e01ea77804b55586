package report

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The results.json form: every row of every file, typed, with the CSV
// column names as keys, for tools that do not read CSV. Optional numbers
// (a load step that did not run) are null.
type jsonRun struct {
	Format      string       `json:"format"` // "mentat-spec-results/1"
	Name        string       `json:"name"`
	Invocations []time.Time  `json:"invocations"`
	LastWrite   *time.Time   `json:"last_write,omitempty"`
	Env         []jsonKV     `json:"env"`
	Timings     []jsonTiming `json:"timings"`
	Raw         []jsonTiming `json:"raw"`
	Loads       []jsonLoad   `json:"loads"`
	Windows     []jsonWindow `json:"windows"`
	Checks      []jsonCheck  `json:"checks"`
	Sizes       []jsonSize   `json:"sizes"`
	Plans       []string     `json:"plans"`
	Logs        []string     `json:"logs"`
	Findings    string       `json:"findings,omitempty"`
	// Tables are the run's other CSV files (evidence.csv,
	// latency-split.csv, noise.csv, precision.csv, a kind's own such as
	// capacity.csv and logs/capacity-evidence.csv), by path: each row keyed
	// by its header's columns, a number where every value of the column is
	// one, null where a value is empty (unknown).
	Tables map[string][]map[string]any `json:"tables"`
}

type jsonKV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type jsonTiming struct {
	Scenario   string  `json:"scenario"`
	Backend    string  `json:"backend"`
	Scale      string  `json:"scale"`
	NDatoms    int64   `json:"n_datoms"`
	Clients    int     `json:"clients"`
	Op         string  `json:"op"`
	Rep        int     `json:"rep,omitempty"`
	Count      int64   `json:"count"`
	P50Ms      float64 `json:"p50_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	Throughput float64 `json:"throughput_ops_s"`
	Errors     int64   `json:"errors"`
	Reps       int     `json:"reps,omitempty"`
}

type jsonLoad struct {
	Backend    string   `json:"backend"`
	Scale      string   `json:"scale"`
	NDatoms    int64    `json:"n_datoms"`
	WallS      float64  `json:"wall_s"`
	DatomsPerS float64  `json:"datoms_per_s"`
	PostLoadS  *float64 `json:"post_load_s"`
	AnalyzeS   *float64 `json:"analyze_s"`
	VacuumS    *float64 `json:"vacuum_s"`
	SizeBytes  *int64   `json:"size_bytes"`
	Jobs       int      `json:"jobs"`
	Ceiling    bool     `json:"ceiling"`
}

type jsonWindow struct {
	Scenario string  `json:"scenario"`
	Backend  string  `json:"backend"`
	Scale    string  `json:"scale"`
	Clients  int     `json:"clients"`
	Op       string  `json:"op"`
	Window   int     `json:"window"`
	StartS   float64 `json:"start_s"`
	EndS     float64 `json:"end_s"`
	Count    int64   `json:"count"`
	P50Ms    float64 `json:"p50_ms"`
	P95Ms    float64 `json:"p95_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
	Tput     float64 `json:"throughput_ops_s"`
	Errors   int64   `json:"errors"`
	Late     int64   `json:"late"`
}

type jsonCheck struct {
	Status   string `json:"status"`
	Scenario string `json:"scenario"`
	Backend  string `json:"backend"`
	Scale    string `json:"scale"`
	Name     string `json:"name"`
	Detail   string `json:"detail"`
}

type jsonSize struct {
	Scale         string `json:"scale"`
	Backend       string `json:"backend"`
	Bytes         int64  `json:"bytes"`
	SharedBuffers int64  `json:"shared_buffers,omitempty"`
}

func jsonTimings(rows []results.Row) []jsonTiming {
	out := make([]jsonTiming, len(rows))
	for i, r := range rows {
		out[i] = jsonTiming{r.Scenario, r.Backend, r.Scale, r.NDatoms, r.Clients, r.Op, r.Rep, r.Count,
			r.P50Ms, r.P95Ms, r.P99Ms, r.MaxMs, r.Throughput, r.Errors, r.Reps}
	}
	return out
}

// JSON is the results.json format.
func JSON(r *results.Run, w io.Writer) error {
	out := jsonRun{
		Format: "mentat-spec-results/1", Name: r.Name, Invocations: r.Invocations,
		Env: []jsonKV{}, Timings: jsonTimings(r.Timings), Raw: jsonTimings(r.Raw),
		Loads: []jsonLoad{}, Windows: []jsonWindow{}, Checks: []jsonCheck{}, Sizes: []jsonSize{},
		Plans: r.Plans, Logs: r.Logs, Findings: r.Findings,
	}
	if out.Invocations == nil {
		out.Invocations = []time.Time{}
	}
	if out.Plans == nil {
		out.Plans = []string{}
	}
	if out.Logs == nil {
		out.Logs = []string{}
	}
	if !r.LastWrite.IsZero() {
		t := r.LastWrite.UTC()
		out.LastWrite = &t
	}
	for _, kv := range r.Env {
		out.Env = append(out.Env, jsonKV{kv.Key, kv.Value})
	}
	for _, l := range r.Loads {
		out.Loads = append(out.Loads, jsonLoad{l.Backend, l.Scale, l.NDatoms, l.WallS, l.DatomsPerS,
			l.PostLoadS, l.AnalyzeS, l.VacuumS, l.SizeBytes, l.Jobs, l.Ceiling})
	}
	for _, x := range r.Windows {
		out.Windows = append(out.Windows, jsonWindow{x.Scenario, x.Backend, x.Scale, x.Clients, x.Op, x.Window, x.StartS, x.EndS,
			x.Count, x.P50Ms, x.P95Ms, x.P99Ms, x.MaxMs, x.Throughput, x.Errors, x.Late})
	}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, jsonCheck{c.Status, c.Scenario, c.Backend, c.Scale, c.Name, c.Detail})
	}
	for _, s := range r.Sizes {
		out.Sizes = append(out.Sizes, jsonSize{s.Scale, s.Backend, s.Bytes, s.SharedBuffers})
	}
	out.Tables = map[string][]map[string]any{}
	var tabs []csvTable
	if r.Dir != "" { // a run built in memory has no other files
		var err error
		if tabs, err = tables(r.Dir, results.TimingsFile, results.RawFile, results.LoadsFile, results.WindowsFile); err != nil {
			return err
		}
	}
	for _, t := range tabs {
		out.Tables[t.File] = jsonTable(t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// jsonTable is t's rows as objects: a column whose values all read as
// finite numbers holds numbers, any other strings; an empty value is
// null, as the CSV files write an unknown.
func jsonTable(t csvTable) []map[string]any {
	numeric := make([]bool, len(t.Header))
	for c := range t.Header {
		numeric[c] = true
		for _, row := range t.Rows {
			if row[c] == "" {
				continue
			}
			if _, ok := finite(row[c]); !ok {
				numeric[c] = false
				break
			}
		}
	}
	out := make([]map[string]any, 0, len(t.Rows))
	for _, row := range t.Rows {
		m := make(map[string]any, len(row))
		for c, h := range t.Header {
			switch v := row[c]; {
			case v == "":
				m[h] = nil
			case numeric[c]:
				m[h], _ = finite(v)
			default:
				m[h] = v
			}
		}
		out = append(out, m)
	}
	return out
}

// finite reads s as a finite number, not as the words ParseFloat also
// takes ("inf", "nan"): a text column of such words stays text.
func finite(s string) (float64, bool) {
	if s == "" || !(s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '+' || s[0] == '.') {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}
