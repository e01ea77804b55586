package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/measure"
)

// The CSV headers, exactly as the seed suite wrote them.
const (
	TimingsHeader = "scenario,backend,scale,n_datoms,clients,op,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors,reps"
	RawHeader     = "scenario,backend,scale,n_datoms,clients,op,rep,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors"
	LoadsHeader   = "backend,scale,n_datoms,wall_s,datoms_per_s,post_load_s,analyze_s,vacuum_s,size_bytes,jobs,ceiling"
)

// Row is one line of raw.csv (one rep) or timings.csv (the median).
type Row struct {
	Scenario string
	Backend  string
	Scale    string
	NDatoms  int64
	Clients  int
	Op       string
	Rep      int // raw.csv only, from 1
	Count    int64
	// Latencies in milliseconds.
	P50Ms, P95Ms, P99Ms, MaxMs float64
	Throughput                 float64 // successful calls per second
	Errors                     int64
	Reps                       int // timings.csv only
}

// Key identifies a point across runs, as compare matches rows.
type Key struct {
	Scenario, Backend, Scale string
	Clients                  int
	Op                       string
}

// Key returns the row's point.
func (r Row) Key() Key {
	return Key{Scenario: r.Scenario, Backend: r.Backend, Scale: r.Scale, Clients: r.Clients, Op: r.Op}
}

func (k Key) String() string {
	return fmt.Sprintf("%s %s %s clients=%d %s", k.Scenario, k.Backend, k.Scale, k.Clients, k.Op)
}

// FromResult turns one stream's measure.Result into a raw.csv row; base
// carries the point (Scenario, Backend, Scale, NDatoms), the caller sets Rep.
func FromResult(base Row, r measure.Result) Row {
	row := base
	row.Clients, row.Op, row.Count, row.Errors = r.Clients, r.Op, r.Count, r.Errors
	row.P50Ms, row.P95Ms, row.P99Ms, row.MaxMs = ms(r.P50), ms(r.P95), ms(r.P99), ms(r.Max)
	row.Throughput = r.Throughput
	return row
}

// CeilingRow records a scenario skipped because its first call took
// longer than the probe ceiling: op "ceiling", one call, its latency.
func CeilingRow(base Row, clients int, first time.Duration) Row {
	v := ms(first)
	row := base
	row.Clients, row.Op, row.Rep, row.Count, row.Reps = clients, OpCeiling, 1, 1, 1
	row.P50Ms, row.P95Ms, row.P99Ms, row.MaxMs = v, v, v, v
	row.Throughput, row.Errors = 0, 0
	return row
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Median folds the reps of one point into its timings.csv row: each
// numeric field is its own median (the mean of the middle two for an even
// number of reps), errors are summed and Reps is the number of rows. The
// point is the first row's; no rows give a zero Row.
func Median(rows []Row) Row {
	if len(rows) == 0 {
		return Row{}
	}
	out := rows[0]
	out.Rep = 0
	out.Reps = len(rows)
	out.NDatoms = medianInt(rows, func(r Row) int64 { return r.NDatoms })
	out.Count = medianInt(rows, func(r Row) int64 { return r.Count })
	out.P50Ms = medianFloat(rows, func(r Row) float64 { return r.P50Ms })
	out.P95Ms = medianFloat(rows, func(r Row) float64 { return r.P95Ms })
	out.P99Ms = medianFloat(rows, func(r Row) float64 { return r.P99Ms })
	out.MaxMs = medianFloat(rows, func(r Row) float64 { return r.MaxMs })
	out.Throughput = medianFloat(rows, func(r Row) float64 { return r.Throughput })
	out.Errors = 0
	for _, r := range rows {
		out.Errors += r.Errors
	}
	return out
}

func medianFloat(rows []Row, f func(Row) float64) float64 {
	v := make([]float64, len(rows))
	for i, r := range rows {
		v[i] = f(r)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func medianInt(rows []Row, f func(Row) int64) int64 {
	v := make([]int64, len(rows))
	for i, r := range rows {
		v[i] = f(r)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// LoadRow is one line of loads.csv.
type LoadRow struct {
	Backend, Scale string
	NDatoms        int64   // datoms loaded (reached, for a ceiling)
	WallS          float64 // load wall time, seconds
	DatomsPerS     float64
	// Seconds of the steps after the load (index builds, ANALYZE,
	// VACUUM); nil when a step did not run (an empty field).
	PostLoadS, AnalyzeS, VacuumS *float64
	SizeBytes                    *int64 // store size; nil if unknown
	Jobs                         int    // parallel loaders
	Ceiling                      bool   // the load cap was hit
}

// The verdicts of a correctness check.
const (
	Pass = "PASS"
	Fail = "FAIL"
	Skip = "SKIP"
	// Threshold is a crossed threshold: not a wrong answer but a gate the
	// spec set on the numbers, with its own exit code.
	Threshold = "THRESHOLD"
)

// CheckLine is one line of checks.txt.
type CheckLine struct {
	Status                   string // Pass, Fail, Skip or Threshold
	Scenario, Backend, Scale string
	Name                     string // may contain spaces
	Detail                   string
}

// SizeRow is one line of sizes.txt.
type SizeRow struct {
	Scale, Backend string
	Bytes          int64
	SharedBuffers  int64 // bytes; 0 when unknown or not applicable
}

// KV is one env.txt entry.
type KV struct{ Key, Value string }

// Appenders build one line into buf without fmt: rows are small and the
// result path should cost nothing next to a measured point.

func appendTiming(b []byte, r Row) []byte {
	b = appendHead(b, r)
	b = appendCount(b, r)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Reps), 10)
	return append(b, '\n')
}

func appendRaw(b []byte, r Row) []byte {
	b = appendHead(b, r)
	b = strconv.AppendInt(b, int64(r.Rep), 10)
	b = append(b, ',')
	b = appendCount(b, r)
	return append(b, '\n')
}

// appendHead writes scenario..op and a trailing comma.
func appendHead(b []byte, r Row) []byte {
	b = appendField(b, r.Scenario)
	b = appendField(b, r.Backend)
	b = appendField(b, r.Scale)
	b = strconv.AppendInt(b, r.NDatoms, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Clients), 10)
	b = append(b, ',')
	return appendField(b, r.Op)
}

// appendCount writes count..errors, no trailing comma.
func appendCount(b []byte, r Row) []byte {
	b = strconv.AppendInt(b, r.Count, 10)
	for _, v := range [...]float64{r.P50Ms, r.P95Ms, r.P99Ms, r.MaxMs} {
		b = append(b, ',')
		b = appendFloat(b, v, 6) // ns resolution
	}
	b = append(b, ',')
	b = appendFloat(b, r.Throughput, 3)
	b = append(b, ',')
	return strconv.AppendInt(b, r.Errors, 10)
}

func appendLoad(b []byte, r LoadRow) []byte {
	b = appendField(b, r.Backend)
	b = appendField(b, r.Scale)
	b = strconv.AppendInt(b, r.NDatoms, 10)
	b = append(b, ',')
	b = appendFloat(b, r.WallS, 3)
	b = append(b, ',')
	b = appendFloat(b, r.DatomsPerS, 1)
	for _, v := range [...]*float64{r.PostLoadS, r.AnalyzeS, r.VacuumS} {
		b = append(b, ',')
		if v != nil {
			b = appendFloat(b, *v, 3)
		}
	}
	b = append(b, ',')
	if r.SizeBytes != nil {
		b = strconv.AppendInt(b, *r.SizeBytes, 10)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Jobs), 10)
	if r.Ceiling {
		return append(b, ",1\n"...)
	}
	return append(b, ",0\n"...)
}

// appendFloat writes v rounded to dec decimals, shortest form; NaN and
// infinities, which only a bug produces, are written empty.
func appendFloat(b []byte, v float64, dec int) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b
	}
	p := math.Pow10(dec)
	return strconv.AppendFloat(b, math.Round(v*p)/p, 'f', -1, 64)
}

// appendField writes s as a CSV field and a comma, quoting when needed.
func appendField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") && (s == "" || (s[0] != ' ' && s[0] != '\t')) {
		b = append(b, s...)
		return append(b, ',')
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"', ',')
}

func appendCheck(b []byte, c CheckLine) []byte {
	b = append(b, c.Status...)
	for _, f := range [...]string{c.Scenario, c.Backend, c.Scale} {
		b = append(b, ' ')
		b = append(b, token(f)...)
	}
	b = append(b, ' ')
	b = append(b, OneLine(c.Name)...)
	b = append(b, ": "...)
	b = append(b, OneLine(c.Detail)...)
	return append(b, '\n')
}

func appendSize(b []byte, s SizeRow) []byte {
	b = append(b, token(s.Scale)...)
	b = append(b, ' ')
	b = append(b, token(s.Backend)...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, s.Bytes, 10)
	b = append(b, " bytes ("...)
	b = append(b, HumanBytes(s.Bytes)...)
	b = append(b, ')')
	if s.SharedBuffers > 0 {
		b = append(b, "; "+SizesCacheLabel+" "...)
		b = strconv.AppendInt(b, s.SharedBuffers, 10)
		b = append(b, " bytes ("...)
		b = append(b, HumanBytes(s.SharedBuffers)...)
		b = append(b, "); ratio "...)
		b = strconv.AppendFloat(b, float64(s.Bytes)/float64(s.SharedBuffers), 'f', 4, 64)
		if s.Bytes > s.SharedBuffers {
			// The seed suite's runs all fit; a store that does not reads
			// through the OS page cache and the disk.
			b = append(b, "; larger than "+SizesCacheLabel...)
		}
	}
	return append(b, '\n')
}

// SizesCacheLabel is what sizes.txt calls a store's buffer cache,
// whatever the database calls it (the seed suite measured PostgreSQL's).
const SizesCacheLabel = "shared_buffers"

// CacheSettingKey is the env.txt key, under backend.<name>.<scale>., of
// the setting that sizes a backend's buffer cache as its driver names it
// (drivers.CacheSetting). It is a fact of the driver, not a setting in
// force: BackendSettings leaves it out.
const CacheSettingKey = "cache_setting"

// OneLine keeps a text field on its line.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// token keeps a name one space-separated word, so lines parse back.
func token(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Join(strings.Fields(s), "_")
}

// HumanBytes follows seed 001 ("0.19 GiB"): GiB from a tenth of a GiB.
func HumanBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(f/(1<<10), 'f', 2, 64) + " KiB"
	case n < 100<<20:
		return strconv.FormatFloat(f/(1<<20), 'f', 2, 64) + " MiB"
	case n < 1<<40:
		return strconv.FormatFloat(f/(1<<30), 'f', 2, 64) + " GiB"
	default:
		return strconv.FormatFloat(f/(1<<40), 'f', 2, 64) + " TiB"
	}
}

// Thousands writes n with thousands separators: 984,803.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
