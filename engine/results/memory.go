package results

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"time"
)

// The engine's memory by phase: one row per phase of a scale and backend
// (a phase that runs in several stretches, such as measure and checks
// between a cell's groups, has a row per stretch).
const (
	MemoryFile   = "memory.csv"
	MemoryHeader = "scale,backend,phase,start_utc,seconds,peak_rss_bytes,end_rss_bytes,peak_go_bytes,peak_of"
)

func init() { csvHeaders[MemoryFile] = MemoryHeader }

// Phases of a run that memory.csv names.
const (
	PhaseTruth      = "truth"      // generating the dataset and computing its truth
	PhaseLoad       = "load"       // the bulk load and the after-load SQL
	PhaseMeasure    = "measure"    // the points
	PhaseChecks     = "checks"     // the correctness checks
	PhaseCrossCheck = "crosscheck" // the cross-backend answer diffs
	PhaseReports    = "reports"    // summary.md, report.html, results.json
)

// MemoryAll is the backend of a phase that belongs to the scale, not to
// one backend (truth, crosscheck), or to the run (reports).
const MemoryAll = "all"

// Peaks of memory.csv's peak_rss_bytes.
const (
	PeakOfPhase   = "phase"   // the kernel's peak was reset at the phase's start
	PeakOfProcess = "process" // the kernel would not reset it: the process's peak so far
)

// MemoryRow is one phase's memory (memory.csv). PeakRSS is the process's
// resident set at its highest (VmHWM), and so includes what an embedded
// database (SQLite's page cache, DuckDB's buffer pool) holds; PeakGo is
// the most memory the Go runtime held from the OS, sampled, which is the
// engine's own.
type MemoryRow struct {
	Scale, Backend, Phase string
	Start                 time.Time
	Seconds               float64
	PeakRSS, EndRSS       int64 // bytes; 0 when unknown
	PeakGo                int64 // bytes
	PeakOf                string
}

func (MemoryRow) record() {}

func (m MemoryRow) appendTo(d *Dir) error {
	if err := checkKey("memory", m.Scale, m.Backend, m.Phase); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, m.Scale)
	b = appendField(b, m.Backend)
	b = appendField(b, m.Phase)
	b = m.Start.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, ',')
	b = appendFloat(b, m.Seconds, 3)
	for _, n := range []int64{m.PeakRSS, m.EndRSS, m.PeakGo} {
		b = append(b, ',')
		if n > 0 {
			b = strconv.AppendInt(b, n, 10)
		}
	}
	b = append(b, ',')
	b = append(b, OneLine(m.PeakOf)...)
	d.buf = append(b, '\n')
	return d.write(MemoryFile, d.buf)
}

// ReadMemory reads memory.csv; a directory without one has no rows.
func ReadMemory(dir string) ([]MemoryRow, error) {
	var out []MemoryRow
	err := readCSV(filepath.Join(dir, MemoryFile), MemoryHeader, func(r *record) {
		start, _ := time.Parse(time.RFC3339, r.str("start_utc"))
		opt := func(name string) int64 {
			if v := r.optInt(name); v != nil {
				return *v
			}
			return 0
		}
		out = append(out, MemoryRow{Scale: r.str("scale"), Backend: r.str("backend"), Phase: r.str("phase"), Start: start,
			Seconds: r.float("seconds"), PeakRSS: opt("peak_rss_bytes"), EndRSS: opt("end_rss_bytes"), PeakGo: opt("peak_go_bytes"),
			PeakOf: r.str("peak_of")})
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// AppendTo appends one record to the results directory dir outside a
// run, e.g. the reports' own row once the run's Dir is closed.
func AppendTo(dir string, rec Record) error {
	d, err := Open(dir)
	if err != nil {
		return err
	}
	err = d.Emit(rec)
	if _, cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
