package results

import (
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// precision.csv holds, for every rep of every point, how precisely its
// p50 and p99 were known when it stopped and why it stopped. It lives
// next to timings.csv so that file keeps the seed suite's exact schema.
const (
	PrecisionFile   = "precision.csv"
	PrecisionHeader = "scenario,backend,scale,clients,op,rep,n,p50_ms,p50_rel_ci,p99_ms,p99_rel_ci,stopped_by,client_cpu_us"
)

// precisionRequired are the columns every precision.csv has; files
// written before client_cpu_us read without it.
const precisionRequired = "scenario,backend,scale,clients,op,rep,n,p50_ms,p50_rel_ci,p99_ms,p99_rel_ci,stopped_by"

func init() { csvHeaders[PrecisionFile] = PrecisionHeader }

// PrecisionRow is one line of precision.csv. The relative intervals are
// half-widths of 95% confidence intervals divided by the quantile (0.05:
// known within 5%); +Inf (written empty) when too few calls bracket it.
type PrecisionRow struct {
	Scenario, Backend, Scale string
	Clients                  int
	Op                       string
	Rep                      int
	N                        int64 // successful calls
	P50Ms, P50RelCI          float64
	P99Ms, P99RelCI          float64
	StoppedBy                string // measure.StopMin, StopPrecision, StopMax or StopInterrupted
	// ClientCPUUs is the CPU the clients' process (or workers) used during
	// the rep's window per call of the point, all its streams together,
	// in µs: what the load generator spends per call. 0 (written empty)
	// when unknown.
	ClientCPUUs float64
}

// PrecisionOf builds the precision row of one rep from its raw.csv row
// (which carries the point and Rep) and the measure.Result it came from.
//
// Its client CPU is per call of r's stream; a point of several streams
// sets ClientCPUUs from all of them (ClientCPUPerCall).
func PrecisionOf(raw Row, r measure.Result) PrecisionRow {
	return PrecisionRow{
		Scenario: raw.Scenario, Backend: raw.Backend, Scale: raw.Scale, Clients: r.Clients, Op: r.Op, Rep: raw.Rep,
		N: r.Count, P50Ms: ms(r.P50), P50RelCI: r.P50RelCI, P99Ms: ms(r.P99), P99RelCI: r.P99RelCI, StoppedBy: r.StoppedBy,
		ClientCPUUs: ClientCPUPerCall([]measure.Result{r}),
	}
}

// ClientCPUPerCall is the clients' CPU per call of a point measured as
// res (its streams), in µs; 0 when unknown or no call was made.
func ClientCPUPerCall(res []measure.Result) float64 {
	var calls int64
	for _, r := range res {
		calls += r.Count + r.Errors
	}
	if len(res) == 0 || calls == 0 || res[0].ClientCPU <= 0 {
		return 0
	}
	return float64(res[0].ClientCPU) / float64(time.Microsecond) / float64(calls)
}

// AppendPrecision appends one rep to precision.csv.
func (d *Dir) AppendPrecision(p PrecisionRow) error {
	if err := checkKey("precision", p.Scenario, p.Backend, p.Scale, p.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendPrecision(d.buf[:0], p)
	return d.write(PrecisionFile, d.buf)
}

func appendPrecision(b []byte, p PrecisionRow) []byte {
	b = appendField(b, p.Scenario)
	b = appendField(b, p.Backend)
	b = appendField(b, p.Scale)
	b = strconv.AppendInt(b, int64(p.Clients), 10)
	b = append(b, ',')
	b = appendField(b, p.Op)
	b = strconv.AppendInt(b, int64(p.Rep), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, p.N, 10)
	for _, v := range [...]struct {
		v   float64
		dec int
	}{{p.P50Ms, 6}, {p.P50RelCI, 4}, {p.P99Ms, 6}, {p.P99RelCI, 4}} {
		b = append(b, ',')
		b = appendFloat(b, v.v, v.dec)
	}
	b = append(b, ',')
	b = append(b, p.StoppedBy...)
	b = append(b, ',')
	if p.ClientCPUUs > 0 {
		b = strconv.AppendFloat(b, p.ClientCPUUs, 'f', 2, 64)
	}
	return append(b, '\n')
}

// ReadPrecision reads precision.csv of dir in file order; an empty
// interval reads as +Inf.
func ReadPrecision(dir string) ([]PrecisionRow, error) {
	var rows []PrecisionRow
	err := readCSV(filepath.Join(dir, PrecisionFile), precisionRequired, func(r *record) {
		rows = append(rows, PrecisionRow{
			Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
			Clients: int(r.int("clients")), Op: r.str("op"), Rep: int(r.int("rep")), N: r.int("n"),
			P50Ms: r.float("p50_ms"), P50RelCI: infIfEmpty(r, "p50_rel_ci"),
			P99Ms: r.float("p99_ms"), P99RelCI: infIfEmpty(r, "p99_rel_ci"), StoppedBy: r.str("stopped_by"),
		})
		if v := r.optFloat("client_cpu_us"); v != nil {
			rows[len(rows)-1].ClientCPUUs = *v
		}
	})
	return rows, err
}

func infIfEmpty(r *record, name string) float64 {
	if v := r.optFloat(name); v != nil {
		return *v
	}
	return math.Inf(1)
}
