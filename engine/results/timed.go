package results

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/mentat-spec/mentat-spec/engine/measure"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// Files of timed runs: sustained windows, open-loop counts, HDR logs and
// sampler logs.
const (
	WindowsFile  = "windows.csv"
	OpenLoopFile = "openloop.csv"
	HdrDir       = "hdr"

	WindowsHeader  = "scenario,backend,scale,clients,op,window,start_s,end_s,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors,late"
	OpenLoopHeader = "scenario,backend,scale,clients,op,rate_ops_s,count,throughput_ops_s,late,dropped,errors"
)

func init() {
	csvHeaders[WindowsFile] = WindowsHeader
	csvHeaders[OpenLoopFile] = OpenLoopHeader
}

// WindowRow is one stream's window of a sustained run (windows.csv).
type WindowRow struct {
	Row            // the point and the window's counts and percentiles
	Window int     // from 0
	StartS float64 // since the run began
	EndS   float64
	Late   int64
	// Hist is the window's latency histogram (ns), when measured: what a
	// live view shows before the point's Hist. No file has it.
	Hist *hdrhistogram.Histogram
}

// OpenLoopRow is one open-loop stream's offered load (openloop.csv): the
// timing row of the same point (op "read@<rate>", see RateOp) has its
// latencies, measured from each call's intended start.
type OpenLoopRow struct {
	Row             // the point, count, throughput and errors
	Rate    float64 // offered calls per second
	Late    int64   // calls that started later than the late bound
	Dropped int64   // calls due that never started
}

// Hist is a point's latency histogram (ns), written to
// hdr/<scenario>-<backend>-<scale>-c<clients>-<op>.hlog in the HdrHistogram
// log format: one interval per window for sustained runs, one per rep
// for closed-loop points.
type Hist struct {
	Row       Row
	Intervals []Interval
}

// RepHist is one rep's histogram of a point, sent as soon as the rep is
// measured for what judges a point while it runs (a threshold's abort).
// It is written to no file: the point's Hist holds every rep.
type RepHist struct {
	Row      Row
	Interval Interval
}

// RateOp is the op of an open-loop stream's rows: "read@500". The rate is
// part of the point, so the phases of a stream are distinct rows for
// summary.md and compare.
func RateOp(op string, rate float64) string {
	return op + "@" + strconv.FormatFloat(rate, 'f', -1, 64)
}

// Interval is one histogram of a log with its time span.
type Interval struct {
	Start, End time.Time
	Hist       *hdrhistogram.Histogram
}

// Sample is one row of a sampler's log, logs/sampler-<name>.csv. Columns
// is its header, written when the file is new.
type Sample struct {
	Sampler string
	Columns []string
	Values  []string
}

func (WindowRow) record()   {}
func (OpenLoopRow) record() {}
func (Hist) record()        {}
func (Sample) record()      {}
func (RepHist) record()     {}

// WindowRowOf builds a windows.csv row from a measured window.
func WindowRowOf(base Row, w measure.Window) WindowRow {
	return WindowRow{Row: FromResult(base, w.Result), Window: w.Index, StartS: w.Start.Seconds(), EndS: w.End.Seconds(), Late: w.Late, Hist: w.Result.Hist}
}

// HistOf is a histogram of the given latencies over one interval, for
// points of one or a few calls (cold, open, ceiling rows).
func HistOf(row Row, start time.Time, lat ...time.Duration) Hist {
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	end := start
	for _, d := range lat {
		_ = h.RecordValue(min(max(int64(d), 1), int64(time.Hour)))
		end = end.Add(d)
	}
	return Hist{Row: row, Intervals: []Interval{{Start: start, End: end, Hist: h}}}
}

// HlogName is the hdr/ file name of a point's histogram.
func HlogName(r Row) string {
	name := fmt.Sprintf("%s-%s-%s-c%d-%s", token(r.Scenario), token(r.Backend), token(r.Scale), r.Clients, token(r.Op))
	return strings.ReplaceAll(name, "/", "_") + ".hlog"
}

func (d *Dir) appendWindow(w WindowRow) error {
	if err := checkKey("window", w.Scenario, w.Backend, w.Scale, w.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, w.Scenario)
	b = appendField(b, w.Backend)
	b = appendField(b, w.Scale)
	b = strconv.AppendInt(b, int64(w.Clients), 10)
	b = append(b, ',')
	b = appendField(b, w.Op)
	b = strconv.AppendInt(b, int64(w.Window), 10)
	b = append(b, ',')
	b = appendFloat(b, w.StartS, 3)
	b = append(b, ',')
	b = appendFloat(b, w.EndS, 3)
	b = append(b, ',')
	b = appendCount(b, w.Row)
	b = append(b, ',')
	b = strconv.AppendInt(b, w.Late, 10)
	d.buf = append(b, '\n')
	return d.write(WindowsFile, d.buf)
}

func (d *Dir) appendOpenLoop(o OpenLoopRow) error {
	if err := checkKey("open-loop", o.Scenario, o.Backend, o.Scale, o.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	b = appendField(b, o.Scenario)
	b = appendField(b, o.Backend)
	b = appendField(b, o.Scale)
	b = strconv.AppendInt(b, int64(o.Clients), 10)
	b = append(b, ',')
	b = appendField(b, o.Op)
	b = appendFloat(b, o.Rate, 3)
	b = append(b, ',')
	b = strconv.AppendInt(b, o.Count, 10)
	b = append(b, ',')
	b = appendFloat(b, o.Throughput, 3)
	for _, n := range [...]int64{o.Late, o.Dropped, o.Errors} {
		b = append(b, ',')
		b = strconv.AppendInt(b, n, 10)
	}
	d.buf = append(b, '\n')
	return d.write(OpenLoopFile, d.buf)
}

// writeHist writes a point's HDR log, replacing one an earlier run of the
// same point left: the log belongs with the last timing row.
func (d *Dir) writeHist(h Hist) error {
	if err := checkKey("histogram", h.Row.Scenario, h.Row.Backend, h.Row.Scale, h.Row.Op); err != nil {
		return err
	}
	if len(h.Intervals) == 0 {
		return fmt.Errorf("results: histogram of %s has no interval", h.Row.Key())
	}
	var buf bytes.Buffer
	if err := WriteHlog(&buf, h.Intervals); err != nil {
		return err
	}
	dir := filepath.Join(d.path, HdrDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	path := filepath.Join(dir, HlogName(h.Row))
	if err := redact.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// WriteHlog writes intervals in the HdrHistogram log format (version 1.3):
// a start and base time, then each interval relative to the first, its
// max in milliseconds (values are ns).
func WriteHlog(w *bytes.Buffer, intervals []Interval) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	base := intervals[0].Start.UnixMilli()
	lw.SetBaseTime(base)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("latencies in nanoseconds; Interval_Max in milliseconds"); err != nil {
		return err
	}
	if err := lw.OutputStartTime(base); err != nil {
		return err
	}
	if err := lw.OutputBaseTime(base); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, iv := range intervals {
		iv.Hist.SetStartTimeMs(iv.Start.UnixMilli())
		iv.Hist.SetEndTimeMs(max(iv.End.UnixMilli(), iv.Start.UnixMilli()+1))
		if err := lw.OutputIntervalHistogram(iv.Hist); err != nil {
			return fmt.Errorf("results: writing an HDR log: %w", err)
		}
	}
	return nil
}

// appendSample appends a sampler row to logs/sampler-<name>.csv, with
// the header when the file is new.
func (d *Dir) appendSample(s Sample) error {
	if s.Sampler == "" || s.Sampler != token(s.Sampler) || strings.ContainsAny(s.Sampler, `/\`) || strings.HasPrefix(s.Sampler, ".") {
		return fmt.Errorf("results: sampler name %q must be a plain word", s.Sampler)
	}
	name := filepath.Join(LogsDir, "sampler-"+s.Sampler+".csv")
	d.mu.Lock()
	defer d.mu.Unlock()
	f, err := d.file(name)
	if err != nil {
		return err
	}
	b := d.buf[:0]
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		b = appendCSVLine(b, s.Columns)
	}
	d.buf = appendCSVLine(b, s.Values)
	return d.write(name, d.buf)
}

func appendCSVLine(b []byte, fields []string) []byte {
	for _, f := range fields {
		b = appendField(b, OneLine(f))
	}
	if len(fields) > 0 {
		b = b[:len(b)-1]
	}
	return append(b, '\n')
}

// ReadWindows reads windows.csv of dir in file order.
func ReadWindows(dir string) ([]WindowRow, error) {
	var rows []WindowRow
	err := readCSV(filepath.Join(dir, WindowsFile), WindowsHeader, func(r *record) {
		rows = append(rows, WindowRow{
			Row: Row{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
				Clients: int(r.int("clients")), Op: r.str("op"), Count: r.int("count"),
				P50Ms: r.float("p50_ms"), P95Ms: r.float("p95_ms"), P99Ms: r.float("p99_ms"), MaxMs: r.float("max_ms"),
				Throughput: r.float("throughput_ops_s"), Errors: r.int("errors")},
			Window: int(r.int("window")), StartS: r.float("start_s"), EndS: r.float("end_s"), Late: r.int("late"),
		})
	})
	return rows, err
}

// ReadOpenLoop reads openloop.csv of dir in file order.
func ReadOpenLoop(dir string) ([]OpenLoopRow, error) {
	var rows []OpenLoopRow
	err := readCSV(filepath.Join(dir, OpenLoopFile), OpenLoopHeader, func(r *record) {
		rows = append(rows, OpenLoopRow{
			Row: Row{Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
				Clients: int(r.int("clients")), Op: r.str("op"), Count: r.int("count"),
				Throughput: r.float("throughput_ops_s"), Errors: r.int("errors")},
			Rate: r.float("rate_ops_s"), Late: r.int("late"), Dropped: r.int("dropped"),
		})
	})
	return rows, err
}

// ReadHlog reads every interval histogram of the HDR log at path, in
// order, with the HdrHistogram library's own log reader.
func ReadHlog(path string) ([]*hdrhistogram.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := hdrhistogram.NewHistogramLogReader(bufio.NewReader(f))
	var out []*hdrhistogram.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if h == nil {
			return out, nil
		}
		out = append(out, h)
	}
}
