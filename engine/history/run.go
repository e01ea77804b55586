package history

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Rep is one rep of a point: its raw.csv row and, where the run wrote
// precision.csv, how precisely it was measured and why it stopped.
type Rep struct {
	Rep                        int
	Count, Errors              int64
	P50Ms, P95Ms, P99Ms, MaxMs float64
	Throughput                 float64
	N                          int64   // precision.csv's successful calls; 0 when not recorded
	P50RelCI, P99RelCI         float64 // +Inf when not known
	StoppedBy                  string
}

// Point is one measured point of a run.
type Point struct {
	results.Key
	NDatoms    int64
	ScenarioFP string      // "" when the run recorded no fingerprints
	BackendFP  string      // "" when the run recorded no fingerprints
	Median     results.Row // timings.csv's row (or the median of the reps)
	Reps       []Rep
}

// Run is one run as the history keeps it.
type Run struct {
	ID        string
	Name      string
	Dir       string
	Started   time.Time
	Revision  string // the build's revision, else the spec's digest; "" when unknown
	Machine   string // the machine facts that split a series, "key=value, ..."
	MachineFP string
	Added     time.Time
	Points    int
	Checks    CheckTally
}

// CheckTally counts a run's check lines.
type CheckTally struct{ Pass, Fail, Skip, Threshold int }

// imported is a results directory read for the history.
type imported struct {
	Run
	env    []results.KV
	points []Point
	checks []results.CheckLine
	loads  []results.LoadRow
	// The evidence (evidence.go): none for a run without it.
	facts  []results.EvidenceRow
	splits []results.SplitRow
	plans  []planRow
}

// machineKeys are the env.txt facts of the machine that make two runs
// incomparable: another instance type, CPU, CPU count, memory or
// platform starts another series. The host name is not one (identical
// CI runners have ephemeral names), nor the kernel, which is reported
// where it changes like a setting.
var machineKeys = []string{"instance_type", "cpu_model", "cpus", "mem_total", "os_arch"}

// importDir reads a results directory: mentat-spec's, or the seed suite's
// (raw.csv, timings.csv, checks.txt, env.txt; no fingerprints, maybe no
// raw.csv: a point then has its median as its one rep).
//
// A directory that is not whole (checkFiles, checkReps) is refused.
func importDir(dir, id string) (*imported, error) {
	if err := checkFiles(dir); err != nil {
		return nil, err
	}
	r, err := results.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if err := checkReps(dir, r); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	im := &imported{env: r.Env, checks: r.Checks, loads: r.Loads}
	im.ID, im.Name, im.Dir = id, r.Name, abs
	im.Started = r.Started()
	if im.Started.IsZero() {
		im.Started = r.LastWrite
	}
	im.Revision = revisionOf(r.Env)
	im.Machine, im.MachineFP = machineOf(r.Env)
	im.points = pointsOf(r, r.Precision, fingerprintsOf(r.Fingerprints))
	if im.facts, im.splits, im.plans, err = evidenceOf(r); err != nil {
		return nil, err
	}
	im.Points = len(im.points)
	for _, c := range r.Checks {
		im.Checks.add(c.Status)
	}
	return im, nil
}

func (t *CheckTally) add(status string) {
	switch status {
	case "PASS":
		t.Pass++
	case "FAIL":
		t.Fail++
	case "SKIP":
		t.Skip++
	case "THRESHOLD":
		t.Threshold++
	}
}

// factValue drops what env.txt adds to a value about where it was read
// (" (from /proc/cpuinfo)") and reads "unknown (...)" as unknown.
func factValue(v string) string {
	if strings.HasPrefix(v, "unknown") {
		return "unknown"
	}
	if i := strings.LastIndex(v, " (from "); i >= 0 && strings.HasSuffix(v, ")") {
		return v[:i]
	}
	return v
}

func envMap(env []results.KV) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		m[kv.Key] = kv.Value
	}
	return m
}

// revisionOf is the run's revision: the build's (mentat_spec_revision,
// or the seed suite's mentat_git), else the spec's digest.
func revisionOf(env []results.KV) string {
	m := envMap(env)
	for _, k := range []string{"mentat_spec_revision", "mentat_git"} {
		if v := factValue(m[k]); v != "" && v != "unknown" {
			return v
		}
	}
	if v := m["spec_sha256"]; v != "" {
		return "spec " + v[:min(12, len(v))]
	}
	return ""
}

// machineOf renders the machine facts and their digest.
func machineOf(env []results.KV) (desc, fp string) {
	m := envMap(env)
	var parts []string
	for _, k := range machineKeys {
		if v, ok := m[k]; ok {
			parts = append(parts, k+"="+factValue(v))
		}
	}
	if len(parts) == 0 {
		return "unknown machine (no machine facts in env.txt)", "unknown"
	}
	desc = strings.Join(parts, ", ")
	sum := sha256.Sum256([]byte(desc))
	return desc, hex.EncodeToString(sum[:])[:12]
}

// fingerprints are the loaded run's fingerprints.json with the digests
// of its scenarios computed once.
type fingerprints struct {
	*results.Fingerprints
	cache map[[3]string][2]string // scenario's digests by (scale, backend, scenario)
}

// fingerprintsOf is nil for a run without fingerprints (the seed suite's).
func fingerprintsOf(f *results.Fingerprints) *fingerprints {
	if f == nil {
		return nil
	}
	return &fingerprints{Fingerprints: f}
}

// scenarioFP is the digest of what decides a scenario's rows in a cell:
// its definition, its queries' and the dataset's fingerprints. The
// backend's definition is left out: settings, setup and indexes are what
// a history is kept to watch.
func (f *fingerprints) scenario(scale, backend, scenario string) (scen, back string) {
	if f == nil {
		return "", ""
	}
	ck := [3]string{scale, backend, scenario}
	if v, ok := f.cache[ck]; ok {
		return v[0], v[1]
	}
	scen, back = f.digest(scale, backend, scenario)
	if f.cache == nil {
		f.cache = map[[3]string][2]string{}
	}
	f.cache[ck] = [2]string{scen, back}
	return scen, back
}

func (f *fingerprints) digest(scale, backend, scenario string) (scen, back string) {
	c, ok := f.Cells[scale+"/"+backend]
	if !ok {
		return "", ""
	}
	s, ok := c.Scenarios[scenario]
	if !ok {
		return "", c.BackendFP
	}
	b := make([]byte, 0, 256)
	b = append(append(append(b, "definition "...), s.Definition...), "\ndataset "...)
	b = append(append(b, c.Dataset...), '\n')
	qs := slices.Clone(s.Queries)
	sort.Strings(qs)
	for _, q := range qs {
		b = append(append(append(append(append(b, "query "...), q...), ' '), c.Queries[q]...), '\n')
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), c.BackendFP
}

// pointsOf joins a run's timings, raw rows and precision rows by point.
// A rerun of a point supersedes: the last timings row, and of each rep
// number the last raw row. Rows of one point come together in the files,
// so the point of the previous row is tried before the index (a run of a
// million raw rows hashes a key per point, not per row).
func pointsOf(r *results.Run, prec []results.PrecisionRow, fps *fingerprints) []Point {
	timings := r.Points()
	index := make(map[results.Key]int, len(timings))
	pts := make([]Point, 0, len(timings))
	hasMedian := make([]bool, 0, len(timings))
	last, lastAt := results.Key{}, -1
	find := func(k results.Key) int {
		if lastAt >= 0 && k == last {
			return lastAt
		}
		i, ok := index[k]
		if !ok {
			i = -1
		}
		last, lastAt = k, i
		return i
	}
	at := func(row results.Row) *Point {
		k := row.Key()
		i := find(k)
		if i < 0 {
			i = len(pts)
			index[k] = i
			last, lastAt = k, i
			scen, back := fps.scenario(k.Scale, k.Backend, k.Scenario)
			pts = append(pts, Point{Key: k, NDatoms: row.NDatoms, ScenarioFP: scen, BackendFP: back, Reps: make([]Rep, 0, max(row.Reps, 1))})
			hasMedian = append(hasMedian, false)
		}
		return &pts[i]
	}
	for _, row := range timings {
		p := at(row)
		p.Median = row
		hasMedian[lastAt] = true
	}
	for _, row := range r.Raw {
		p := at(row)
		rep := Rep{Rep: row.Rep, Count: row.Count, Errors: row.Errors, P50Ms: row.P50Ms, P95Ms: row.P95Ms, P99Ms: row.P99Ms,
			MaxMs: row.MaxMs, Throughput: row.Throughput, P50RelCI: math.Inf(1), P99RelCI: math.Inf(1)}
		if j := slices.IndexFunc(p.Reps, func(x Rep) bool { return x.Rep == row.Rep }); j >= 0 {
			p.Reps[j] = rep
			continue
		}
		p.Reps = append(p.Reps, rep)
	}
	for _, pr := range prec {
		i := find(results.Key{Scenario: pr.Scenario, Backend: pr.Backend, Scale: pr.Scale, Clients: pr.Clients, Op: pr.Op})
		if i < 0 {
			continue
		}
		p := &pts[i]
		if j := slices.IndexFunc(p.Reps, func(x Rep) bool { return x.Rep == pr.Rep }); j >= 0 {
			rp := &p.Reps[j]
			rp.N, rp.P50RelCI, rp.P99RelCI, rp.StoppedBy = pr.N, pr.P50RelCI, pr.P99RelCI, pr.StoppedBy
		}
	}
	for i := range pts {
		p := &pts[i]
		if len(p.Reps) == 0 {
			m := p.Median
			p.Reps = []Rep{{Rep: 1, Count: m.Count, Errors: m.Errors, P50Ms: m.P50Ms, P95Ms: m.P95Ms, P99Ms: m.P99Ms,
				MaxMs: m.MaxMs, Throughput: m.Throughput, P50RelCI: math.Inf(1), P99RelCI: math.Inf(1)}}
		}
		if !hasMedian[i] {
			rows := make([]results.Row, len(p.Reps))
			for j, rp := range p.Reps {
				rows[j] = results.Row{Scenario: p.Scenario, Backend: p.Backend, Scale: p.Scale, NDatoms: p.NDatoms, Clients: p.Clients, Op: p.Op,
					Count: rp.Count, P50Ms: rp.P50Ms, P95Ms: rp.P95Ms, P99Ms: rp.P99Ms, MaxMs: rp.MaxMs, Throughput: rp.Throughput, Errors: rp.Errors}
			}
			p.Median = results.Median(rows)
		}
	}
	return pts
}

// encodeReps packs reps for the points table: per rep its number, the
// raw.csv fields, the precision fields and the stop reason.
func encodeReps(reps []Rep) []byte {
	b := make([]byte, 0, len(reps)*96)
	b = binary.AppendUvarint(b, uint64(len(reps)))
	for _, r := range reps {
		b = binary.AppendUvarint(b, uint64(r.Rep))
		for _, v := range []int64{r.Count, r.Errors, r.N} {
			b = binary.AppendVarint(b, v)
		}
		for _, v := range []float64{r.P50Ms, r.P95Ms, r.P99Ms, r.MaxMs, r.Throughput, r.P50RelCI, r.P99RelCI} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		b = binary.AppendUvarint(b, uint64(len(r.StoppedBy)))
		b = append(b, r.StoppedBy...)
	}
	return b
}

var errCorrupt = errors.New("history: a point's reps are corrupt")

func decodeReps(b []byte) ([]Rep, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	b = b[k:]
	out := make([]Rep, n)
	for i := range out {
		r := &out[i]
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errCorrupt
		}
		r.Rep, b = int(v), b[k:]
		for _, dst := range []*int64{&r.Count, &r.Errors, &r.N} {
			x, k := binary.Varint(b)
			if k <= 0 {
				return nil, errCorrupt
			}
			*dst, b = x, b[k:]
		}
		if len(b) < 7*8 {
			return nil, errCorrupt
		}
		for _, dst := range []*float64{&r.P50Ms, &r.P95Ms, &r.P99Ms, &r.MaxMs, &r.Throughput, &r.P50RelCI, &r.P99RelCI} {
			*dst, b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
		}
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, errCorrupt
		}
		r.StoppedBy, b = string(b[k:k+int(l)]), b[k+int(l):]
	}
	return out, nil
}
