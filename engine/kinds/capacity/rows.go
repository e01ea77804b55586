package capacity

import (
	"errors"
	"io/fs"
	"math"
	"strconv"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Files of capacity searches: one row per scenario, backend and scale in
// capacity.csv, and every probe of every search in logs/.
const (
	CapacityFile       = "capacity.csv"
	CapacityHeader     = "scenario,backend,scale,clients,op,capacity,low,high,unit,limited_by,service_level,probes,seconds,budget_spent"
	CapacityProbesFile = results.LogsDir + "/capacity-probes.csv"
	CapacityProbesHead = "scenario,backend,scale,clients,op,probe,phase,pass,rate_ops_s,seconds,count,errors,late,dropped,achieved_ops_s,achieved_pct,percentile_ms,percentile_low_ms,percentile_high_ms,p50_ms,p99_ms,error_pct,late_pct,held,failed"
)

// OutputName is the capacity searches' value in a loaded run
// (results.Run.Output): a *Searches.
const OutputName = "capacity"

// Searches are a run's capacity files as loaded.
type Searches struct {
	Rows   []CapacityRow      // capacity.csv, the last row of each search
	Probes []CapacityProbeRow // logs/capacity-probes.csv in file order
	// Evidence is logs/capacity-evidence.csv: the database's per probe.
	Evidence []ProbeEvidenceRow
}

// Of returns the capacity searches of a loaded run, empty when it has none.
func Of(r *results.Run) *Searches {
	if s, ok := r.Output(OutputName).(*Searches); ok {
		return s
	}
	return &Searches{}
}

func init() {
	results.RegisterCSV(CapacityFile, CapacityHeader)
	results.RegisterCSV(CapacityProbesFile, CapacityProbesHead)
	results.RegisterCSV(CapacityEvidenceFile, CapacityEvidenceHead)
	results.RegisterOutput(results.Output{Name: OutputName, Files: []string{CapacityFile, CapacityProbesFile, CapacityEvidenceFile}, Read: readSearches, Variant: variant})
}

func readSearches(dir string) (any, error) {
	rows, err := ReadCapacity(dir)
	if err != nil {
		return nil, err
	}
	probes, err := ReadCapacityProbes(dir)
	if err != nil {
		return nil, err
	}
	ev, err := ReadProbeEvidence(dir)
	if err != nil {
		return nil, err
	}
	return &Searches{Rows: rows, Probes: probes, Evidence: ev}, nil
}

// variant is backend's searches renamed label; compare's variants weigh
// the rows, not the probes.
func variant(v any, backend, label string) any {
	out := &Searches{}
	for _, c := range v.(*Searches).Rows {
		if c.Backend == backend {
			c.Backend = label
			out.Rows = append(out.Rows, c)
		}
	}
	return out
}

// Units of a capacity.
const (
	UnitRate    = "ops/s"
	UnitClients = "clients"
)

// CapacityOp is the op of the timing row of a capacity search: the
// latencies of its probe at the capacity found, "read@capacity". The
// same op in every run, whatever the rate, so compare pairs the rows.
func CapacityOp(op string) string { return op + "@capacity" }

// CapacityRow is one capacity search's result (capacity.csv).
type CapacityRow struct {
	results.KindRow
	Scenario, Backend, Scale string
	Clients                  int
	Op                       string // the stream's op (read, write)
	// Capacity is the highest sustained rate found, Low and High its 95%
	// interval; High is +Inf (written empty) when the search never found
	// a failing rate. Capacity is NaN (written empty) when the search
	// could not decide one (limited_by "undecided", or a budget spent
	// before any level held).
	Capacity, Low, High float64
	// Unit is what the capacity counts: ops/s (the highest rate) or
	// clients (a closed-loop search: the most clients).
	Unit         string
	LimitedBy    string // the bound that failed at the edge (latency, errors, achieved, late, throughput) or max_rate, min_rate, budget
	ServiceLevel string
	Probes       int
	Seconds      float64
	BudgetSpent  bool
}

// CapacityProbeRow is one probe of a search (logs/capacity-probes.csv).
// The percentile, its 95% interval's ends, p50, p99 and the achieved
// share are NaN (written empty) where the probe could not measure them,
// never 0.
type CapacityProbeRow struct {
	results.KindRow
	Scenario, Backend, Scale string
	Clients                  int
	Op                       string
	Probe, Pass              int
	Phase                    string
	Rate, Seconds            float64
	Count, Errors            int64
	Late, Dropped            int64
	Achieved, AchievedPct    float64
	PctlMs, PctlLowMs        float64
	PctlHighMs               float64
	P50Ms, P99Ms             float64
	ErrorPct, LatePct        float64
	Held                     bool
	Failed                   string // the bounds broken, joined by +
}

// AppendTo writes the row to capacity.csv.
func (c CapacityRow) AppendTo(d *results.Dir) error {
	if err := results.CheckKey("capacity", c.Scenario, c.Backend, c.Scale, c.Op); err != nil {
		return err
	}
	return d.AppendLine(CapacityFile, func(b []byte) []byte {
		b = results.AppendField(b, c.Scenario)
		b = results.AppendField(b, c.Backend)
		b = results.AppendField(b, c.Scale)
		b = strconv.AppendInt(b, int64(c.Clients), 10)
		b = append(b, ',')
		b = results.AppendField(b, c.Op)
		for _, v := range []float64{c.Capacity, c.Low, c.High} {
			b = results.AppendFloat(b, v, 3)
			b = append(b, ',')
		}
		b = results.AppendField(b, c.Unit)
		b = results.AppendField(b, c.LimitedBy)
		b = results.AppendField(b, c.ServiceLevel)
		b = strconv.AppendInt(b, int64(c.Probes), 10)
		b = append(b, ',')
		b = results.AppendFloat(b, c.Seconds, 3)
		b = append(b, ',')
		return strconv.AppendBool(b, c.BudgetSpent)
	})
}

// appendProbeKey appends the columns that name a probe, each followed by
// a comma: the key of logs/capacity-probes.csv and
// logs/capacity-evidence.csv alike.
func appendProbeKey(b []byte, scenario, backend, scale string, clients int, op string, probe int) []byte {
	b = results.AppendField(b, scenario)
	b = results.AppendField(b, backend)
	b = results.AppendField(b, scale)
	b = strconv.AppendInt(b, int64(clients), 10)
	b = append(b, ',')
	b = results.AppendField(b, op)
	b = strconv.AppendInt(b, int64(probe), 10)
	return append(b, ',')
}

// AppendTo writes the probe to logs/capacity-probes.csv.
func (p CapacityProbeRow) AppendTo(d *results.Dir) error {
	if err := results.CheckKey("capacity probe", p.Scenario, p.Backend, p.Scale, p.Op); err != nil {
		return err
	}
	return d.AppendLine(CapacityProbesFile, func(b []byte) []byte {
		b = appendProbeKey(b, p.Scenario, p.Backend, p.Scale, p.Clients, p.Op, p.Probe)
		b = results.AppendField(b, p.Phase)
		b = strconv.AppendInt(b, int64(p.Pass), 10)
		b = append(b, ',')
		b = results.AppendFloat(b, p.Rate, 3)
		b = append(b, ',')
		b = results.AppendFloat(b, p.Seconds, 3)
		for _, n := range []int64{p.Count, p.Errors, p.Late, p.Dropped} {
			b = append(b, ',')
			b = strconv.AppendInt(b, n, 10)
		}
		for _, v := range []float64{p.Achieved, p.AchievedPct, p.PctlMs, p.PctlLowMs, p.PctlHighMs, p.P50Ms, p.P99Ms, p.ErrorPct, p.LatePct} {
			b = append(b, ',')
			b = results.AppendFloat(b, v, 3)
		}
		b = append(b, ',')
		b = strconv.AppendBool(b, p.Held)
		b = append(b, ',')
		return append(b, results.OneLine(p.Failed)...)
	})
}

// ReadCapacity reads capacity.csv; a directory without one has no rows.
func ReadCapacity(dir string) ([]CapacityRow, error) {
	var out []CapacityRow
	err := results.ReadCSV(dir, CapacityFile, CapacityHeader, func(r results.Fields) {
		high := math.Inf(1)
		if v := r.OptFloat("high"); v != nil {
			high = *v
		}
		out = append(out, CapacityRow{Scenario: r.Str("scenario"), Backend: r.Str("backend"), Scale: r.Str("scale"),
			Clients: int(r.Int("clients")), Op: r.Str("op"), Capacity: nanIfEmpty(r, "capacity"), Low: r.Float("low"), High: high, Unit: r.Str("unit"),
			LimitedBy: r.Str("limited_by"), ServiceLevel: r.Str("service_level"), Probes: int(r.Int("probes")),
			Seconds: r.Float("seconds"), BudgetSpent: r.Str("budget_spent") == "true"})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return results.LastPerKey(out, func(c CapacityRow) [5]string {
		return [5]string{c.Scenario, c.Backend, c.Scale, strconv.Itoa(c.Clients), c.Op}
	}), err
}

// ReadCapacityProbes reads logs/capacity-probes.csv.
func ReadCapacityProbes(dir string) ([]CapacityProbeRow, error) {
	var out []CapacityProbeRow
	err := results.ReadCSV(dir, CapacityProbesFile, CapacityProbesHead, func(r results.Fields) {
		out = append(out, CapacityProbeRow{Scenario: r.Str("scenario"), Backend: r.Str("backend"), Scale: r.Str("scale"),
			Clients: int(r.Int("clients")), Op: r.Str("op"), Probe: int(r.Int("probe")), Phase: r.Str("phase"), Pass: int(r.Int("pass")),
			Rate: r.Float("rate_ops_s"), Seconds: r.Float("seconds"), Count: r.Int("count"), Errors: r.Int("errors"),
			Late: r.Int("late"), Dropped: r.Int("dropped"), Achieved: r.Float("achieved_ops_s"), AchievedPct: nanIfEmpty(r, "achieved_pct"),
			PctlMs: nanIfEmpty(r, "percentile_ms"), PctlLowMs: nanIfEmpty(r, "percentile_low_ms"), PctlHighMs: nanIfEmpty(r, "percentile_high_ms"),
			P50Ms: nanIfEmpty(r, "p50_ms"), P99Ms: nanIfEmpty(r, "p99_ms"), ErrorPct: r.Float("error_pct"), LatePct: r.Float("late_pct"),
			Held: r.Str("held") == "true", Failed: r.Str("failed")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// nanIfEmpty reads an empty field as NaN: a value that was not measured.
func nanIfEmpty(r results.Fields, name string) float64 {
	if v := r.OptFloat(name); v != nil {
		return *v
	}
	return math.NaN()
}
