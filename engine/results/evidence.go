package results

import (
	"math"
	"strconv"
)

// The database's own evidence per point (evidence.csv) and where each
// point's latency goes (latency-split.csv). Point is the point's number
// in its scenario from 1; Rep the rep, 0 when the evidence spans all reps
// (sequential order).
const (
	EvidenceFile     = "evidence.csv"
	EvidenceHeader   = "scenario,backend,scale,point,rep,source,query,name,value,unit"
	SplitFile        = "latency-split.csv"
	SplitHeader      = "scenario,backend,scale,point,rep,clients,calls,observed_ms,server_exec_ms,planning_ms,round_trip_floor_ms,rest_ms,rest_includes,engine_cpu_ms"
	evidenceDecimals = 6
)

func init() {
	csvHeaders[EvidenceFile] = EvidenceHeader
	csvHeaders[SplitFile] = SplitHeader
}

// EvidenceRow is one fact a database's instruments reported for a point:
// a statement's counter over the point (Query set) or a session-wide one.
type EvidenceRow struct {
	Scenario, Backend, Scale string
	Point, Rep               int
	Source, Query, Name      string
	Value                    float64
	Unit                     string
}

// SplitRow is where one point's mean latency per call went, in
// milliseconds: ObservedMs = ServerExecMs + PlanningMs + RoundTripMs +
// RestMs (queueing and the client). NaN is unknown (written empty): the
// database does not expose that part, which then is in the rest, and
// RestIncludes names it ("planning", "server_exec+planning").
type SplitRow struct {
	Scenario, Backend, Scale string
	Point, Rep               int
	Clients                  int
	Calls                    int64
	ObservedMs               float64
	ServerExecMs, PlanningMs float64
	RoundTripMs, RestMs      float64
	RestIncludes             string
	EngineCPUMs              float64 // this process's CPU per call (an embedded database's work included)
}

func (EvidenceRow) record() {}
func (SplitRow) record()    {}

func (e EvidenceRow) appendTo(d *Dir) error {
	if err := checkKey("evidence", e.Scenario, e.Backend, e.Scale, e.Source, e.Name); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, e.Scenario)
	b = appendField(b, e.Backend)
	b = appendField(b, e.Scale)
	b = appendInts(b, e.Point, e.Rep)
	b = appendField(b, e.Source)
	b = appendField(b, OneLine(e.Query))
	b = appendField(b, e.Name)
	b = appendFloat(b, e.Value, evidenceDecimals)
	b = append(b, ',')
	b = append(b, OneLine(e.Unit)...)
	d.buf = append(b, '\n')
	return d.write(EvidenceFile, d.buf)
}

func (s SplitRow) appendTo(d *Dir) error {
	if err := checkKey("latency split", s.Scenario, s.Backend, s.Scale); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, s.Scenario)
	b = appendField(b, s.Backend)
	b = appendField(b, s.Scale)
	b = appendInts(b, s.Point, s.Rep, s.Clients)
	b = strconv.AppendInt(b, s.Calls, 10)
	for _, v := range []float64{s.ObservedMs, s.ServerExecMs, s.PlanningMs, s.RoundTripMs, s.RestMs} {
		b = append(b, ',')
		b = appendFloat(b, v, evidenceDecimals)
	}
	b = append(b, ',')
	b = appendField(b, s.RestIncludes)
	b = appendFloat(b, s.EngineCPUMs, evidenceDecimals)
	d.buf = append(b, '\n')
	return d.write(SplitFile, d.buf)
}

func appendInts(b []byte, ns ...int) []byte {
	for _, n := range ns {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
	}
	return b
}

// Unknown is the value of a part of a split that cannot be measured.
var Unknown = math.NaN()
