package results

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
)

// Files of capacity searches: one row per scenario, backend and scale in
// capacity.csv, and every probe of every search in logs/.
const (
	CapacityFile       = "capacity.csv"
	CapacityHeader     = "scenario,backend,scale,clients,op,capacity,low,high,unit,limited_by,service_level,probes,seconds,budget_spent"
	CapacityProbesFile = LogsDir + "/capacity-probes.csv"
	CapacityProbesHead = "scenario,backend,scale,clients,op,probe,phase,pass,rate_ops_s,seconds,count,errors,late,dropped,achieved_ops_s,achieved_pct,percentile_ms,percentile_low_ms,percentile_high_ms,p50_ms,p99_ms,error_pct,late_pct,held,failed"
)

func init() {
	csvHeaders[CapacityFile] = CapacityHeader
	csvHeaders[filepath.FromSlash(CapacityProbesFile)] = CapacityProbesHead
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

// selfWriting is a record that appends itself to its file: a new kind of
// row needs no case in Dir.Emit.
type selfWriting interface{ appendTo(d *Dir) error }

func (CapacityRow) record()      {}
func (CapacityProbeRow) record() {}

// appendTo writes the row to capacity.csv.
func (c CapacityRow) appendTo(d *Dir) error {
	if err := checkKey("capacity", c.Scenario, c.Backend, c.Scale, c.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, c.Scenario)
	b = appendField(b, c.Backend)
	b = appendField(b, c.Scale)
	b = strconv.AppendInt(b, int64(c.Clients), 10)
	b = append(b, ',')
	b = appendField(b, c.Op)
	for _, v := range []float64{c.Capacity, c.Low, c.High} {
		b = appendFloat(b, v, 3)
		b = append(b, ',')
	}
	b = appendField(b, c.Unit)
	b = appendField(b, c.LimitedBy)
	b = appendField(b, c.ServiceLevel)
	b = strconv.AppendInt(b, int64(c.Probes), 10)
	b = append(b, ',')
	b = appendFloat(b, c.Seconds, 3)
	b = append(b, ',')
	b = strconv.AppendBool(b, c.BudgetSpent)
	d.buf = append(b, '\n')
	return d.write(CapacityFile, d.buf)
}

// appendTo writes the probe to logs/capacity-probes.csv.
func (p CapacityProbeRow) appendTo(d *Dir) error {
	if err := checkKey("capacity probe", p.Scenario, p.Backend, p.Scale, p.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, p.Scenario)
	b = appendField(b, p.Backend)
	b = appendField(b, p.Scale)
	b = strconv.AppendInt(b, int64(p.Clients), 10)
	b = append(b, ',')
	b = appendField(b, p.Op)
	b = strconv.AppendInt(b, int64(p.Probe), 10)
	b = append(b, ',')
	b = appendField(b, p.Phase)
	b = strconv.AppendInt(b, int64(p.Pass), 10)
	b = append(b, ',')
	b = appendFloat(b, p.Rate, 3)
	b = append(b, ',')
	b = appendFloat(b, p.Seconds, 3)
	for _, n := range []int64{p.Count, p.Errors, p.Late, p.Dropped} {
		b = append(b, ',')
		b = strconv.AppendInt(b, n, 10)
	}
	for _, v := range []float64{p.Achieved, p.AchievedPct, p.PctlMs, p.PctlLowMs, p.PctlHighMs, p.P50Ms, p.P99Ms, p.ErrorPct, p.LatePct} {
		b = append(b, ',')
		b = appendFloat(b, v, 3)
	}
	b = append(b, ',')
	b = strconv.AppendBool(b, p.Held)
	b = append(b, ',')
	b = append(b, OneLine(p.Failed)...)
	d.buf = append(b, '\n')
	return d.write(filepath.FromSlash(CapacityProbesFile), d.buf)
}

// ReadCapacity reads capacity.csv; a directory without one has no rows.
func ReadCapacity(dir string) ([]CapacityRow, error) {
	var out []CapacityRow
	err := readCSV(filepath.Join(dir, CapacityFile), CapacityHeader, func(r *record) {
		high := math.Inf(1)
		if v := r.optFloat("high"); v != nil {
			high = *v
		}
		out = append(out, CapacityRow{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
			Clients: int(r.int("clients")), Op: r.str("op"), Capacity: nanIfEmpty(r, "capacity"), Low: r.float("low"), High: high, Unit: r.str("unit"),
			LimitedBy: r.str("limited_by"), ServiceLevel: r.str("service_level"), Probes: int(r.int("probes")),
			Seconds: r.float("seconds"), BudgetSpent: r.str("budget_spent") == "true"})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return LastPerKey(out, func(c CapacityRow) [5]string {
		return [5]string{c.Scenario, c.Backend, c.Scale, strconv.Itoa(c.Clients), c.Op}
	}), err
}

// ReadCapacityProbes reads logs/capacity-probes.csv.
func ReadCapacityProbes(dir string) ([]CapacityProbeRow, error) {
	var out []CapacityProbeRow
	err := readCSV(filepath.Join(dir, filepath.FromSlash(CapacityProbesFile)), CapacityProbesHead, func(r *record) {
		out = append(out, CapacityProbeRow{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
			Clients: int(r.int("clients")), Op: r.str("op"), Probe: int(r.int("probe")), Phase: r.str("phase"), Pass: int(r.int("pass")),
			Rate: r.float("rate_ops_s"), Seconds: r.float("seconds"), Count: r.int("count"), Errors: r.int("errors"),
			Late: r.int("late"), Dropped: r.int("dropped"), Achieved: r.float("achieved_ops_s"), AchievedPct: nanIfEmpty(r, "achieved_pct"),
			PctlMs: nanIfEmpty(r, "percentile_ms"), PctlLowMs: nanIfEmpty(r, "percentile_low_ms"), PctlHighMs: nanIfEmpty(r, "percentile_high_ms"),
			P50Ms: nanIfEmpty(r, "p50_ms"), P99Ms: nanIfEmpty(r, "p99_ms"), ErrorPct: r.float("error_pct"), LatePct: r.float("late_pct"),
			Held: r.str("held") == "true", Failed: r.str("failed")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// nanIfEmpty reads an empty field as NaN: a value that was not measured.
func nanIfEmpty(r *record, name string) float64 {
	if v := r.optFloat(name); v != nil {
		return *v
	}
	return math.NaN()
}
