package results

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadTimings reads timings.csv of dir in file order. A missing file is an
// error wrapping fs.ErrNotExist.
func ReadTimings(dir string) ([]Row, error) {
	var rows []Row
	err := readCSV(filepath.Join(dir, TimingsFile), TimingsHeader, func(r *record) {
		row := r.row()
		row.Reps = int(r.int("reps"))
		rows = append(rows, row)
	})
	return rows, err
}

// ReadRaw reads raw.csv of dir in file order, e.g. to see which points a
// resumed run has already measured.
func ReadRaw(dir string) ([]Row, error) {
	var rows []Row
	err := readCSV(filepath.Join(dir, RawFile), RawHeader, func(r *record) {
		row := r.row()
		row.Rep = int(r.int("rep"))
		rows = append(rows, row)
	})
	return rows, err
}

// ReadLoads reads loads.csv of dir in file order.
func ReadLoads(dir string) ([]LoadRow, error) {
	var rows []LoadRow
	err := readCSV(filepath.Join(dir, LoadsFile), LoadsHeader, func(r *record) {
		rows = append(rows, LoadRow{
			Backend: r.str("backend"), Scale: r.str("scale"), NDatoms: r.int("n_datoms"),
			WallS: r.float("wall_s"), DatomsPerS: r.float("datoms_per_s"),
			PostLoadS: r.optFloat("post_load_s"), AnalyzeS: r.optFloat("analyze_s"), VacuumS: r.optFloat("vacuum_s"),
			SizeBytes: r.optInt("size_bytes"), Jobs: int(r.int("jobs")), Ceiling: r.int("ceiling") != 0,
		})
	})
	return rows, err
}

// record is one CSV line addressed by column name; the first parse error
// sticks and is reported with the line number.
type record struct {
	col    map[string]int
	fields []string
	line   int
	err    error
}

// str returns the named field, "" when the file has no such column (the
// required ones are checked when the header is read).
func (r *record) str(name string) string {
	i, ok := r.col[name]
	if !ok || i >= len(r.fields) {
		return ""
	}
	return r.fields[i]
}

func (r *record) fail(name string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("line %d, %s: %w", r.line, name, err)
	}
}

func (r *record) int(name string) int64 {
	s := r.str(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Old files may hold counts written as floats ("30.0").
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			r.fail(name, err)
		}
		return int64(f)
	}
	return v
}

func (r *record) optInt(name string) *int64 {
	if r.str(name) == "" {
		return nil
	}
	v := r.int(name)
	return &v
}

func (r *record) float(name string) float64 {
	s := r.str(name)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		r.fail(name, err)
	}
	return v
}

func (r *record) optFloat(name string) *float64 {
	if r.str(name) == "" {
		return nil
	}
	v := r.float(name)
	return &v
}

func (r *record) row() Row {
	return Row{
		Scenario: r.str("scenario"), Backend: r.str("backend"), Scale: r.str("scale"),
		NDatoms: r.int("n_datoms"), Clients: int(r.int("clients")), Op: r.str("op"),
		Count: r.int("count"),
		P50Ms: r.float("p50_ms"), P95Ms: r.float("p95_ms"), P99Ms: r.float("p99_ms"), MaxMs: r.float("max_ms"),
		Throughput: r.float("throughput_ops_s"), Errors: r.int("errors"),
	}
}

// readCSV calls fn for every well-formed line of path. The columns of
// header must be present (in any order). Lines with the wrong number of
// fields (torn by a crash) and repeated headers are skipped.
func readCSV(path, header string, fn func(*record)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	rec := &record{col: map[string]int{}}
	for i, h := range head {
		rec.col[strings.TrimSpace(h)] = i
	}
	for _, name := range strings.Split(header, ",") {
		if _, ok := rec.col[name]; !ok {
			return fmt.Errorf("results: %s: no column %q", path, name)
		}
	}
	width, first := len(head), head[0]
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				continue // a torn quoted field
			}
			return fmt.Errorf("results: %s: %w", path, err)
		}
		if len(fields) != width || fields[0] == first {
			continue
		}
		rec.fields = fields
		rec.line, _ = cr.FieldPos(0)
		fn(rec)
		if rec.err != nil {
			return fmt.Errorf("results: %s: %w", path, rec.err)
		}
	}
}

// readChecks reads the check lines of checks.txt (TOTAL and other lines
// are skipped).
func readChecks(dir string) ([]CheckLine, error) {
	var out []CheckLine
	err := readLines(filepath.Join(dir, ChecksFile), func(line string) {
		f := strings.SplitN(line, " ", 5)
		if len(f) < 5 {
			return
		}
		st := f[0]
		if !validStatus(st) {
			return
		}
		name, detail, _ := strings.Cut(f[4], ": ")
		out = append(out, CheckLine{Status: st, Scenario: f[1], Backend: f[2], Scale: f[3], Name: name, Detail: detail})
	})
	return out, err
}

// ReadEnv returns env.txt with each key's latest value, keys in the order
// they first appeared.
func ReadEnv(dir string) ([]KV, error) {
	var out []KV
	at := map[string]int{}
	err := readLines(filepath.Join(dir, EnvFile), func(line string) {
		if strings.HasPrefix(line, "#") {
			return
		}
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			k, ok = strings.CutSuffix(line, ":")
			if !ok {
				return
			}
		}
		v = unescapeValue(v)
		if i, seen := at[k]; seen {
			out[i].Value = v
			return
		}
		at[k] = len(out)
		out = append(out, KV{Key: k, Value: v})
	})
	return out, err
}

func unescapeValue(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(v[i])
			}
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// readSizes reads sizes.txt; malformed lines are skipped.
func readSizes(dir string) ([]SizeRow, error) {
	var out []SizeRow
	err := readLines(filepath.Join(dir, SizesFile), func(line string) {
		parts := strings.Split(line, "; ")
		f := strings.Fields(parts[0])
		if len(f) < 3 {
			return
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return
		}
		s := SizeRow{Scale: f[0], Backend: f[1], Bytes: n}
		for _, p := range parts[1:] {
			if g := strings.Fields(p); len(g) >= 2 && g[0] == SizesCacheLabel {
				s.SharedBuffers, _ = strconv.ParseInt(g[1], 10, 64)
			}
		}
		out = append(out, s)
	})
	return out, err
}

func readLines(path string, fn func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), "\r"); line != "" {
			fn(line)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("results: read %s: %w", path, err)
	}
	return nil
}
