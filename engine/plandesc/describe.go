// Package plandesc turns a plan into a deterministic, comparable
// description with a fingerprint (sha256 of canonical JSON) per dataset,
// backend, query and scenario. Two readers use it: package plandiff,
// which lists what changed between two revisions of a spec, and the
// runner, which records the fingerprints in each results directory
// (results.Fingerprints) so that package compare can compare two runs row
// by row where their definitions did not change.
package plandesc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/answer"
	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// Description is a plan as comparable data.
type Description struct {
	Dataset  string        `json:"dataset"`
	Scales   []string      `json:"scales"`
	Backends []string      `json:"backends"`
	Datasets []DatasetDesc `json:"datasets"` // one per scale, in run order
	Cells    []CellDesc    `json:"cells"`    // in run order
	Points   int           `json:"points"`
	Estimate Estimate      `json:"estimate"`
}

// Estimate is a duration range in seconds.
type Estimate struct {
	LoS float64 `json:"lo_s"`
	HiS float64 `json:"hi_s"`
}

func estimate(e plan.Estimate) Estimate {
	return Estimate{LoS: e.Lo.Seconds(), HiS: e.Hi.Seconds()}
}

// String prints the range as the plan does.
func (e Estimate) String() string {
	d := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return plan.Estimate{Lo: d(e.LoS), Hi: d(e.HiS)}.String()
}

// DatasetDesc is one scale's resolved dataset.
type DatasetDesc struct {
	Scale       string   `json:"scale"`
	Summary     string   `json:"summary"` // sizes, for the reader; derived from Lines
	Lines       []string `json:"lines"`   // seed, entities, attributes, history, marks, truth
	Fingerprint string   `json:"fingerprint"`
}

// CellDesc is one (scale, backend) cell.
type CellDesc struct {
	Scale     string         `json:"scale"`
	Backend   BackendDesc    `json:"backend"`
	Queries   []QueryDesc    `json:"queries"` // by name
	Scenarios []ScenarioDesc `json:"scenarios"`
	Estimate  Estimate       `json:"estimate"`
	LoadEst   Estimate       `json:"load_estimate"`
}

// Name is "scale/backend".
func (c *CellDesc) Name() string { return c.Scale + "/" + c.Backend.Name }

// BackendDesc is a backend as resolved for a cell. Option values built
// from a sensitive variable read "(sensitive)". The fingerprint leaves
// the options out.
type BackendDesc struct {
	Name        string            `json:"name"`
	Driver      string            `json:"driver"`
	Dialect     string            `json:"dialect"`
	Options     map[string]string `json:"options,omitempty"`
	Settings    map[string]string `json:"settings,omitempty"`
	Setup       []string          `json:"setup,omitempty"`
	AfterLoad   []string          `json:"after_load,omitempty"`
	Analyze     []string          `json:"analyze,omitempty"`
	Vacuum      []string          `json:"vacuum,omitempty"`
	Restart     []string          `json:"restart,omitempty"`
	DropCaches  []string          `json:"drop_caches,omitempty"`
	Load        string            `json:"load"`
	Fingerprint string            `json:"fingerprint"`
	// What every session the engine opens has in force, and the
	// statement that explains a query.
	Extensions              []drivers.Extension `json:"extensions,omitempty"`
	AllowUnsignedExtensions bool                `json:"allow_unsigned_extensions,omitempty"`
	SessionSetup            []string            `json:"session_setup,omitempty"`
	Explain                 string              `json:"explain,omitempty"`
}

// QueryDesc is a query's SQL for the cell's dialect and its parameters.
type QueryDesc struct {
	Name        string            `json:"name"`
	Dialect     string            `json:"dialect"`
	SQL         string            `json:"sql"`
	Params      map[string]string `json:"params,omitempty"`
	Answer      string            `json:"answer,omitempty"`  // a one-value format; empty: rows
	Columns     []string          `json:"columns,omitempty"` // its tuples' positions
	EDN         string            `json:"edn,omitempty"`     // the Datalog the explain statement binds as :q
	Fingerprint string            `json:"fingerprint"`
}

// ScenarioDesc is a scenario in a cell. Its fingerprint covers what
// decides its measurements and checks (kind, sampling, points, queries
// run, checks), not its description.
type ScenarioDesc struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Description string   `json:"description,omitempty"`
	Sampling    string   `json:"sampling"`
	Points      []string `json:"points"`
	Queries     []string `json:"queries"`
	Writes      bool     `json:"writes"`
	Checks      []string `json:"checks,omitempty"`
	Estimate    Estimate `json:"estimate"`
	Fingerprint string   `json:"fingerprint"`
}

// Describe turns a plan into its description.
func Describe(p *plan.Plan) *Description {
	d := &Description{Dataset: p.Dataset, Scales: p.Matrix.Scales, Backends: p.Matrix.Backends,
		Points: p.Points(), Estimate: estimate(p.Estimate())}
	secrets := p.SensitiveValues()
	for _, sp := range p.Scales {
		d.Datasets = append(d.Datasets, describeDataset(sp))
		for _, c := range sp.Cells {
			d.Cells = append(d.Cells, describeCell(c, secrets))
		}
	}
	return d
}

func describeDataset(sp *plan.ScalePlan) DatasetDesc {
	g := sp.Gen
	lines := []string{fmt.Sprintf("dataset %s: seed %d, tx_size %d", g.Name, g.Seed, g.TxSize)}
	for _, e := range g.Entities {
		lines = append(lines, fmt.Sprintf("entity %s: count %d", e.Name, e.Count))
		for _, a := range e.Attrs {
			a.ID = 0 // assigned by position, not declared
			lines = append(lines, fmt.Sprintf("  attr %s: %s", a.Ident, brief(a, "Ident", "ID")))
		}
	}
	for _, h := range g.History {
		lines = append(lines, "history "+h.Name+": "+brief(h, "Name"))
	}
	for _, m := range g.Marks {
		lines = append(lines, "mark "+m.Name+": "+brief(m, "Name"))
	}
	for _, t := range g.Truth {
		lines = append(lines, "truth "+t.Name+": "+brief(t, "Name"))
	}
	st := sp.Stats
	return DatasetDesc{Scale: sp.Name, Lines: lines, Fingerprint: fingerprint(lines),
		Summary: fmt.Sprintf("%s datoms, %s transactions", plan.Thousands(st.Datoms), plan.Thousands(st.Txs))}
}

func describeCell(c *plan.Cell, secrets []string) CellDesc {
	b := c.Backend
	bd := BackendDesc{Name: b.Name, Driver: b.Driver, Dialect: b.Dialect, Options: redact(b.Options, secrets),
		Settings: b.Settings, Setup: b.Setup, AfterLoad: b.AfterLoad, Analyze: b.Analyze, Vacuum: b.Vacuum,
		Restart: redactList(b.Restart, secrets), DropCaches: redactList(b.DropCaches, secrets), Load: loadText(b.Load),
		Extensions: b.Extensions, AllowUnsignedExtensions: b.AllowUnsignedExtensions, SessionSetup: b.SessionSetup, Explain: b.Explain}
	// The driver's options say where the store is and how to reach it
	// (path, dsn, database): shown in a diff, left out of the fingerprint.
	fp := bd
	fp.Options = nil
	bd.Fingerprint = fingerprint(fp)
	cd := CellDesc{Scale: c.Scale.Name, Backend: bd, Estimate: estimate(c.Estimate()), LoadEst: estimate(c.LoadEstimate())}
	names := make([]string, 0, len(c.Queries))
	for n := range c.Queries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		q := c.Queries[n]
		qd := QueryDesc{Name: q.Name, Dialect: b.Dialect, SQL: q.SQL, Params: map[string]string{}, Columns: q.Columns, EDN: q.EDN}
		if q.Answer != answer.Rows {
			qd.Answer = q.Answer
		}
		for pn, ps := range q.Params {
			qd.Params[pn] = ps.String()
		}
		// Answer and Columns are left out when unset, so a query's
		// fingerprint is what it was before they existed.
		qd.Fingerprint = fingerprint(struct {
			Dialect, SQL string
			Params       map[string]string
			Answer       string   `json:",omitempty"`
			Columns      []string `json:",omitempty"`
			EDN          string   `json:",omitempty"`
		}{qd.Dialect, qd.SQL, qd.Params, qd.Answer, qd.Columns, qd.EDN})
		cd.Queries = append(cd.Queries, qd)
	}
	for _, s := range c.Scenarios {
		sd := ScenarioDesc{Name: s.Name, Kind: s.Kind, Description: s.Description, Sampling: samplingText(s.Sampling),
			Queries: s.Queries, Writes: s.Writes, Estimate: estimate(s.Estimate())}
		for _, pt := range s.Points {
			sd.Points = append(sd.Points, strings.TrimSpace(pt.Describe()))
		}
		for _, ck := range c.CheckSources(s) {
			sd.Checks = append(sd.Checks, checkText(ck))
		}
		sd.Fingerprint = fingerprint(struct {
			Kind, Sampling  string
			Points, Queries []string
			Writes          bool
			Checks          []string
		}{sd.Kind, sd.Sampling, sd.Points, sd.Queries, sd.Writes, sd.Checks})
		cd.Scenarios = append(cd.Scenarios, sd)
	}
	return cd
}

func checkText(ck plan.CheckSource) string {
	keys := make([]string, 0, len(ck.Attrs))
	for k := range ck.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{"check " + ck.Name + ": query " + ck.Query}
	for _, k := range keys {
		parts = append(parts, k+" = "+ck.Attrs[k])
	}
	return strings.Join(parts, "; ")
}

func samplingText(s plan.SamplingPlan) string {
	f := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
	return fmt.Sprintf("warmup %d, min_s %s, min_n %d, max_s %s, reps %d, probe_s %s, check_s %s, load_max_s %s",
		s.Warmup, f(s.MinDuration), s.MinSamples, f(s.MaxDuration), s.Reps, f(s.Probe), f(s.Check), f(s.LoadMax))
}

func loadText(l plan.Load) string {
	if !l.Declared {
		return "none"
	}
	keys := make([]string, 0, len(l.Tables))
	for k := range l.Tables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"->"+l.Tables[k])
	}
	if l.Statement != "" {
		return fmt.Sprintf("statement %q, format %s, batch_datoms %d, ids %s, jobs %d", l.Statement, l.Format, l.BatchDatoms, l.IDs, l.Jobs)
	}
	return fmt.Sprintf("tables %s, jobs %d, batch_rows %d", strings.Join(parts, " "), l.Jobs, l.BatchRows)
}

const sensitiveText = "(sensitive)"

func isSecret(v string, secrets []string) bool {
	for _, s := range secrets {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

func redact(m map[string]string, secrets []string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if isSecret(v, secrets) {
			v = sensitiveText
		}
		out[k] = v
	}
	return out
}

func redactList(l []string, secrets []string) []string {
	var out []string
	for _, v := range l {
		if isSecret(v, secrets) {
			v = sensitiveText
		}
		out = append(out, v)
	}
	return out
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./%:-]+$`)

// brief prints a struct's non-zero fields in declaration order as
// name=value, nested structs as name.field=value, leaving out skip.
func brief(v any, skip ...string) string {
	var parts []string
	var walk func(prefix string, rv reflect.Value)
	walk = func(prefix string, rv reflect.Value) {
		rt := rv.Type()
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			if !f.IsExported() || (prefix == "" && slices.Contains(skip, f.Name)) {
				continue
			}
			fv := rv.Field(i)
			if fv.IsZero() {
				continue
			}
			name := prefix + strings.ToLower(f.Name)
			if fv.Kind() == reflect.Struct {
				walk(name+".", fv)
				continue
			}
			val := fmt.Sprint(fv.Interface())
			switch {
			case fv.Kind() == reflect.String && plainWord.MatchString(val):
			case fv.Kind() == reflect.Bool || fv.CanInt() || fv.CanFloat():
			default:
				if b, err := json.Marshal(fv.Interface()); err == nil {
					val = string(b)
				}
			}
			parts = append(parts, name+"="+val)
		}
	}
	walk("", reflect.ValueOf(v))
	return strings.Join(parts, " ")
}

// fingerprint is the sha256 of v as JSON. encoding/json sorts map keys,
// so the encoding is canonical for the plain types used here.
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", v))
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
