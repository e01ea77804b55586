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
	rows := make([]Row, 0, linesAbout(filepath.Join(dir, TimingsFile)))
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
	rows := make([]Row, 0, linesAbout(filepath.Join(dir, RawFile)))
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

// linesAbout guesses a CSV file's rows from its size (a timings or raw
// row takes 80 bytes or more), so a large file's rows are not copied
// each time their slice grows; 0 when the file cannot be read.
func linesAbout(path string) int {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return int(min(st.Size()/80, 1<<24))
}

// record is one CSV line addressed by column name; the first parse error
// sticks and is reported with the line number.
type record struct {
	col    map[string]int
	fields []string
	line   int
	err    error
	// rowCols are row()'s columns, looked up once per file: a million-row
	// raw.csv would otherwise hash thirteen names per line.
	rowCols []int
	// interned keeps one copy of each key field's value (scenario,
	// backend, ...): a row would otherwise keep its whole line alive.
	interned map[string]string
}

// rowFields are the columns of row(), in rowCols' order.
var rowFields = []string{"scenario", "backend", "scale", "n_datoms", "clients", "op", "count",
	"p50_ms", "p95_ms", "p99_ms", "max_ms", "throughput_ops_s", "errors"}

// str returns the named field, "" when the file has no such column (the
// required ones are checked when the header is read).
func (r *record) str(name string) string { return r.at(r.index(name)) }

func (r *record) fail(name string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("line %d, %s: %w", r.line, name, err)
	}
}

func (r *record) int(name string) int64 { return r.intAt(r.index(name), name) }

// index is the column of name, -1 when the file has none.
func (r *record) index(name string) int {
	if i, ok := r.col[name]; ok {
		return i
	}
	return -1
}

func (r *record) optInt(name string) *int64 {
	if r.str(name) == "" {
		return nil
	}
	v := r.int(name)
	return &v
}

func (r *record) float(name string) float64 { return r.floatAt(r.index(name), name) }

func (r *record) optFloat(name string) *float64 {
	if r.str(name) == "" {
		return nil
	}
	v := r.float(name)
	return &v
}

func (r *record) row() Row {
	if r.rowCols == nil {
		r.rowCols = make([]int, len(rowFields))
		for i, name := range rowFields {
			r.rowCols[i] = r.index(name)
		}
		r.interned = map[string]string{}
	}
	c := r.rowCols
	return Row{
		Scenario: r.key(c[0]), Backend: r.key(c[1]), Scale: r.key(c[2]),
		NDatoms: r.intAt(c[3], "n_datoms"), Clients: int(r.intAt(c[4], "clients")), Op: r.key(c[5]),
		Count: r.intAt(c[6], "count"),
		P50Ms: r.floatAt(c[7], "p50_ms"), P95Ms: r.floatAt(c[8], "p95_ms"), P99Ms: r.floatAt(c[9], "p99_ms"), MaxMs: r.floatAt(c[10], "max_ms"),
		Throughput: r.floatAt(c[11], "throughput_ops_s"), Errors: r.intAt(c[12], "errors"),
	}
}

// at is field i of the line, "" when the file has no such column.
func (r *record) at(i int) string {
	if i < 0 || i >= len(r.fields) {
		return ""
	}
	return r.fields[i]
}

// key is field i, interned: key fields take a few values over a file.
func (r *record) key(i int) string {
	s := r.at(i)
	if v, ok := r.interned[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(r.interned) < 4096 {
		r.interned[v] = v
	}
	return v
}

func (r *record) intAt(i int, name string) int64 {
	s := r.at(i)
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

func (r *record) floatAt(i int, name string) float64 {
	s := r.at(i)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		r.fail(name, err)
	}
	return v
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
		if c, ok := parseCheck(line); ok {
			out = append(out, c)
		}
	})
	return out, err
}

// parseCheck reads one line of checks.txt; TOTAL and torn lines are no
// check.
func parseCheck(line string) (CheckLine, bool) {
	f := strings.SplitN(line, " ", 5)
	if len(f) < 5 || !validStatus(f[0]) {
		return CheckLine{}, false
	}
	name, detail, _ := strings.Cut(f[4], ": ")
	return CheckLine{Status: f[0], Scenario: f[1], Backend: f[2], Scale: f[3], Name: name, Detail: detail}, true
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
