package results

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"time"
)

// NoiseFile holds the machine's state during every measured point (or
// rep): what the run's latencies were measured beside.
const (
	NoiseFile   = "noise.csv"
	NoiseHeader = "scenario,backend,scale,point,rep,start_utc,seconds,load1,cpus,busy_pct,own_pct,server_pct,other_pct,steal_pct,cpu_mhz"
)

func init() { csvHeaders[NoiseFile] = NoiseHeader }

// NoiseRow is one line of noise.csv: the machine while a point (rep 0:
// all its reps) or one of its reps was measured. Shares are percentages
// of the whole machine's CPU time; NaN is unknown (written empty).
type NoiseRow struct {
	Scenario, Backend, Scale string
	Point, Rep               int // the point's number in its scenario, from 1; the rep, 0 for all
	Start                    time.Time
	Seconds                  float64
	Load1                    float64
	CPUs                     int
	BusyPct, OwnPct          float64
	ServerPct, OtherPct      float64
	StealPct                 float64
	MHz                      float64 // 0: not exposed
}

func (NoiseRow) record() {}

func (d *Dir) appendNoise(n NoiseRow) error {
	if err := checkKey("noise", n.Scenario, n.Backend, n.Scale); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, n.Scenario)
	b = appendField(b, n.Backend)
	b = appendField(b, n.Scale)
	b = strconv.AppendInt(b, int64(n.Point), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(n.Rep), 10)
	b = append(b, ',')
	b = n.Start.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, ',')
	b = appendFloat(b, n.Seconds, 3)
	b = append(b, ',')
	b = appendFloat(b, n.Load1, 2)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(n.CPUs), 10)
	for _, v := range []float64{n.BusyPct, n.OwnPct, n.ServerPct, n.OtherPct, n.StealPct} {
		b = append(b, ',')
		if !math.IsNaN(v) {
			b = appendFloat(b, v, 1)
		}
	}
	b = append(b, ',')
	if n.MHz > 0 {
		b = appendFloat(b, n.MHz, 0)
	}
	d.buf = append(b, '\n')
	return d.write(NoiseFile, d.buf)
}

// ReadNoise reads noise.csv.
func ReadNoise(dir string) ([]NoiseRow, error) {
	var out []NoiseRow
	opt := func(r *record, name string) float64 {
		if v := r.optFloat(name); v != nil {
			return *v
		}
		return math.NaN()
	}
	err := readCSV(filepath.Join(dir, NoiseFile), NoiseHeader, func(r *record) {
		start, _ := time.Parse(time.RFC3339, r.str("start_utc"))
		out = append(out, NoiseRow{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
			Point: int(r.int("point")), Rep: int(r.int("rep")), Start: start, Seconds: r.float("seconds"),
			Load1: r.float("load1"), CPUs: int(r.int("cpus")), BusyPct: opt(r, "busy_pct"), OwnPct: opt(r, "own_pct"),
			ServerPct: opt(r, "server_pct"), OtherPct: opt(r, "other_pct"), StealPct: opt(r, "steal_pct"), MHz: r.float("cpu_mhz")})
	})
	return out, err
}

// Noise is the machine's state over several rows, each weighted by its
// length: what compare sets side by side.
type Noise struct {
	Rows               int
	Seconds            float64
	Load1, LoadPerCPU  float64 // means
	OtherPct, StealPct float64 // means, NaN when no row knew them
	MaxOtherPct        float64
	ServerPct, OwnPct  float64
	MHz                float64 // mean where known, 0 when never
}

// SummarizeNoise folds rows; keep selects which (nil: all).
func SummarizeNoise(rows []NoiseRow, keep func(NoiseRow) bool) Noise {
	n := Noise{OtherPct: math.NaN(), StealPct: math.NaN(), ServerPct: math.NaN(), OwnPct: math.NaN()}
	var w, wCPU, other, steal, server, own, load, perCPU, mhz, wMHz float64
	for _, r := range rows {
		if keep != nil && !keep(r) {
			continue
		}
		s := math.Max(r.Seconds, 1e-3)
		n.Rows++
		n.Seconds += r.Seconds
		w += s
		load += s * r.Load1
		if r.CPUs > 0 {
			perCPU += s * r.Load1 / float64(r.CPUs)
		}
		if !math.IsNaN(r.OtherPct) {
			wCPU += s
			other += s * r.OtherPct
			steal += s * r.StealPct
			server += s * r.ServerPct
			own += s * r.OwnPct
			n.MaxOtherPct = math.Max(n.MaxOtherPct, r.OtherPct)
		}
		if r.MHz > 0 {
			wMHz += s
			mhz += s * r.MHz
		}
	}
	if w > 0 {
		n.Load1, n.LoadPerCPU = load/w, perCPU/w
	}
	if wCPU > 0 {
		n.OtherPct, n.StealPct, n.ServerPct, n.OwnPct = other/wCPU, steal/wCPU, server/wCPU, own/wCPU
	}
	if wMHz > 0 {
		n.MHz = mhz / wMHz
	}
	return n
}

// String is the noise in words, for env.txt and compare.
func (n Noise) String() string {
	if n.Rows == 0 {
		return "not recorded"
	}
	s := fmt.Sprintf("other processes %s of the CPU (at most %s in a point), steal %s, load average %.2f (%.2f per CPU)",
		pctOrUnknown(n.OtherPct), pctOrUnknown(n.MaxOtherPct), pctOrUnknown(n.StealPct), n.Load1, n.LoadPerCPU)
	if n.MHz > 0 {
		s += fmt.Sprintf(", %.0f MHz", n.MHz)
	}
	return s + fmt.Sprintf(" over %d points, %.1f s", n.Rows, n.Seconds)
}

func pctOrUnknown(v float64) string {
	if math.IsNaN(v) {
		return "unknown"
	}
	return fmt.Sprintf("%.1f%%", v)
}

// NoiseEnv is env.txt's summary of a run's noise rows.
func NoiseEnv(rows []NoiseRow) []KV {
	n := SummarizeNoise(rows, nil)
	return []KV{
		{Key: "noise", Value: n.String() + " (from noise.csv: /proc/stat, /proc/loadavg, /proc/*/stat, cpufreq)"},
		{Key: "noise_other_cpu_pct", Value: fmt.Sprintf("%.1f", n.OtherPct)},
		{Key: "noise_steal_pct", Value: fmt.Sprintf("%.1f", n.StealPct)},
		{Key: "noise_load1", Value: fmt.Sprintf("%.2f", n.Load1)},
	}
}
