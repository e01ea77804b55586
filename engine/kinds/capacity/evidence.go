package capacity

import (
	"errors"
	"io/fs"
	"math"

	"github.com/mentat-spec/mentat-spec/engine/evidence"
	"github.com/mentat-spec/mentat-spec/engine/kind"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// The database's evidence per probe of a search. A search is one point
// of its scenario, so evidence.csv holds the search's as a whole; each
// probe's is in a file of the kind's own, keyed like capacity-probes.csv
// (scenario, backend, scale, clients, op, probe), so that no reader of
// evidence.csv or latency-split.csv (the split table, history, compare,
// thresholds) takes a probe for a point or a rep. A probe's latency
// split is in the same file under source "split", one row per part.
const (
	CapacityEvidenceFile = results.LogsDir + "/capacity-evidence.csv"
	CapacityEvidenceHead = "scenario,backend,scale,clients,op,probe,source,query,name,value,unit"
	splitSource          = "split"
)

// ProbeEvidenceRow is one fact of one probe (logs/capacity-evidence.csv).
type ProbeEvidenceRow struct {
	results.KindRow
	Scenario, Backend, Scale string
	Clients                  int
	Op                       string
	Probe                    int
	Source, Query, Name      string
	Value                    float64 // NaN (written empty): unknown
	Unit                     string
}

// AppendTo writes the fact to logs/capacity-evidence.csv.
func (e ProbeEvidenceRow) AppendTo(d *results.Dir) error {
	if err := results.CheckKey("capacity evidence", e.Scenario, e.Backend, e.Scale, e.Op, e.Source, e.Name); err != nil {
		return err
	}
	return d.AppendLine(CapacityEvidenceFile, func(b []byte) []byte {
		b = appendProbeKey(b, e.Scenario, e.Backend, e.Scale, e.Clients, e.Op, e.Probe)
		b = results.AppendField(b, e.Source)
		b = results.AppendField(b, results.OneLine(e.Query))
		b = results.AppendField(b, e.Name)
		b = results.AppendFloat(b, e.Value, 6)
		b = append(b, ',')
		return append(b, results.OneLine(e.Unit)...)
	})
}

// ReadProbeEvidence reads logs/capacity-evidence.csv; a directory
// without one (a run before it, or evidence off) has no rows.
func ReadProbeEvidence(dir string) ([]ProbeEvidenceRow, error) {
	var out []ProbeEvidenceRow
	err := results.ReadCSV(dir, CapacityEvidenceFile, CapacityEvidenceHead, func(r results.Fields) {
		out = append(out, ProbeEvidenceRow{Scenario: r.Str("scenario"), Backend: r.Str("backend"), Scale: r.Str("scale"),
			Clients: int(r.Int("clients")), Op: r.Str("op"), Probe: int(r.Int("probe")), Source: r.Str("source"),
			Query: r.Str("query"), Name: r.Str("name"), Value: nanIfEmpty(r, "value"), Unit: r.Str("unit")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return lastAttempt(out), err
}

// lastAttempt keeps each probe's facts as its last attempt wrote them: a
// probe's rows are written together, so a later run of its block (a
// search run again into the same directory) replaces the earlier block
// whole, without a fact of it the later one lacks.
func lastAttempt(rows []ProbeEvidenceRow) []ProbeEvidenceRow {
	type probeKey struct {
		scenario, backend, scale, op string
		clients, probe               int
	}
	keyOf := func(e ProbeEvidenceRow) probeKey {
		return probeKey{e.Scenario, e.Backend, e.Scale, e.Op, e.Clients, e.Probe}
	}
	block := make([]int, len(rows)) // each row's block: a run of rows of one probe
	last := map[probeKey]int{}      // each probe's last block
	for i, e := range rows {
		if i > 0 {
			block[i] = block[i-1]
			if keyOf(rows[i-1]) != keyOf(e) {
				block[i]++
			}
		}
		last[keyOf(e)] = block[i]
	}
	var out []ProbeEvidenceRow
	for i, e := range rows {
		if block[i] == last[keyOf(e)] {
			out = append(out, e)
		}
	}
	return out
}

// splitParts are a split's numbers as the file names them.
func splitParts(s *results.SplitRow) []struct {
	name string
	v    *float64
} {
	return []struct {
		name string
		v    *float64
	}{{"observed_ms", &s.ObservedMs}, {"server_exec_ms", &s.ServerExecMs}, {"planning_ms", &s.PlanningMs},
		{"round_trip_floor_ms", &s.RoundTripMs}, {"rest_ms", &s.RestMs}, {"engine_cpu_ms", &s.EngineCPUMs}}
}

// probeEvidenceRows are ev, probe n of search (clients, op), as rows of
// logs/capacity-evidence.csv: the facts, then the split.
func probeEvidenceRows(base results.Row, clients int, op string, n int, ev kind.Evidence) []ProbeEvidenceRow {
	row := ProbeEvidenceRow{Scenario: base.Scenario, Backend: base.Backend, Scale: base.Scale, Clients: clients, Op: op, Probe: n}
	var out []ProbeEvidenceRow
	for _, f := range ev.Facts {
		r := row
		r.Source, r.Query, r.Name, r.Value, r.Unit = f.Source, f.Query, f.Name, f.Value, f.Unit
		out = append(out, r)
	}
	if s := ev.Split; s != nil {
		r := row
		r.Source = splitSource
		for _, c := range []struct {
			name string
			v    float64
		}{{"clients", float64(s.Clients)}, {"calls", float64(s.Calls)}} {
			r.Name, r.Value = c.name, c.v
			out = append(out, r)
		}
		for _, p := range splitParts(s) {
			r.Name, r.Value, r.Unit = p.name, *p.v, "ms"
			out = append(out, r)
		}
		r.Name, r.Query, r.Value, r.Unit = "rest_includes", s.RestIncludes, math.NaN(), ""
		out = append(out, r)
	}
	return out
}

// probeSide is the evidence of probe p as a side of evidence.Rank; an
// empty side when the probe has none recorded.
func probeSide(all []ProbeEvidenceRow, p CapacityProbeRow) evidence.Side {
	var sd evidence.Side
	split := results.SplitRow{Scenario: p.Scenario, Backend: p.Backend, Scale: p.Scale, Point: p.Probe,
		ObservedMs: math.NaN(), ServerExecMs: math.NaN(), PlanningMs: math.NaN(), RoundTripMs: math.NaN(), RestMs: math.NaN(), EngineCPUMs: math.NaN()}
	hasSplit := false
	for _, e := range all {
		if e.Scenario != p.Scenario || e.Backend != p.Backend || e.Scale != p.Scale || e.Op != p.Op || e.Probe != p.Probe || e.Clients != p.Clients {
			continue
		}
		if e.Source != splitSource {
			sd.Facts = append(sd.Facts, results.EvidenceRow{Scenario: e.Scenario, Backend: e.Backend, Scale: e.Scale, Point: e.Probe,
				Source: e.Source, Query: e.Query, Name: e.Name, Value: e.Value, Unit: e.Unit})
			continue
		}
		hasSplit = true
		switch e.Name {
		case "clients":
			split.Clients = int(e.Value)
		case "calls":
			split.Calls = int64(e.Value)
		case "rest_includes":
			split.RestIncludes = e.Query
		default:
			for _, part := range splitParts(&split) {
				if part.name == e.Name {
					*part.v = e.Value
				}
			}
		}
	}
	if hasSplit {
		sd.Splits = []results.SplitRow{split}
	}
	return sd
}
