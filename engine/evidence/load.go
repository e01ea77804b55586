package evidence

import (
	"errors"
	"io/fs"
	"math"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// OutputName is the evidence's value in a loaded run (results.Run.Output):
// a *Loaded. It registers from here, not in engine/results, so report and
// compare read evidence.csv and latency-split.csv from the one loaded run.
const OutputName = "evidence"

// Loaded is a run's evidence files as read.
type Loaded struct {
	Facts  []results.EvidenceRow // evidence.csv in file order
	Splits []results.SplitRow    // latency-split.csv, the last row of each point and rep
}

// Of returns the evidence of a loaded run, empty when it has none.
func Of(r *results.Run) *Loaded {
	if l, ok := r.Output(OutputName).(*Loaded); ok {
		return l
	}
	return &Loaded{}
}

func init() {
	results.RegisterOutput(results.Output{Name: OutputName, Files: []string{results.EvidenceFile, results.SplitFile}, Read: read, Variant: variant})
}

func read(dir string) (any, error) {
	facts, err := ReadFacts(dir)
	if err != nil {
		return nil, err
	}
	splits, err := ReadSplits(dir)
	if err != nil {
		return nil, err
	}
	return &Loaded{Facts: facts, Splits: splits}, nil
}

// variant is backend's evidence renamed label, for compare's variants.
func variant(v any, backend, label string) any {
	in, out := v.(*Loaded), &Loaded{}
	for _, f := range in.Facts {
		if f.Backend == backend {
			f.Backend = label
			out.Facts = append(out.Facts, f)
		}
	}
	for _, s := range in.Splits {
		if s.Backend == backend {
			s.Backend = label
			out.Splits = append(out.Splits, s)
		}
	}
	return out
}

// ReadFacts reads evidence.csv; a directory without one has no rows.
func ReadFacts(dir string) ([]results.EvidenceRow, error) {
	var out []results.EvidenceRow
	err := results.ReadCSV(dir, results.EvidenceFile, results.EvidenceHeader, func(r results.Fields) {
		out = append(out, results.EvidenceRow{Scenario: r.Str("scenario"), Backend: r.Str("backend"), Scale: r.Str("scale"),
			Point: int(r.Int("point")), Rep: int(r.Int("rep")), Source: r.Str("source"), Query: r.Str("query"),
			Name: r.Str("name"), Value: nanIfEmpty(r, "value"), Unit: r.Str("unit")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// ReadSplits reads latency-split.csv; a point measured again (a rerun)
// keeps its last row. Empty fields, the parts not measured, are NaN.
func ReadSplits(dir string) ([]results.SplitRow, error) {
	var out []results.SplitRow
	err := results.ReadCSV(dir, results.SplitFile, results.SplitHeader, func(r results.Fields) {
		out = append(out, results.SplitRow{Scenario: r.Str("scenario"), Backend: r.Str("backend"), Scale: r.Str("scale"),
			Point: int(r.Int("point")), Rep: int(r.Int("rep")), Clients: int(r.Int("clients")), Calls: r.Int("calls"),
			ObservedMs: nanIfEmpty(r, "observed_ms"), ServerExecMs: nanIfEmpty(r, "server_exec_ms"), PlanningMs: nanIfEmpty(r, "planning_ms"),
			RoundTripMs: nanIfEmpty(r, "round_trip_floor_ms"), RestMs: nanIfEmpty(r, "rest_ms"), RestIncludes: r.Str("rest_includes"),
			EngineCPUMs: nanIfEmpty(r, "engine_cpu_ms")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return results.LastPerKey(out, func(s results.SplitRow) [5]string {
		return [5]string{s.Scenario, s.Backend, s.Scale, strconv.Itoa(s.Point), strconv.Itoa(s.Rep)}
	}), err
}

// nanIfEmpty reads an empty field as NaN: a value not measured.
func nanIfEmpty(r results.Fields, name string) float64 {
	if v := r.OptFloat(name); v != nil {
		return *v
	}
	return math.NaN()
}
