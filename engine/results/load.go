package results

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Run is a loaded results directory: every file typed. Files that are
// absent load as empty; a file that is present but malformed is an error.
type Run struct {
	Dir  string
	Name string // env.txt's run, else the directory's name

	Timings []Row       // timings.csv in file order (a rerun's row follows the one it supersedes)
	Raw     []Row       // raw.csv in file order
	Loads   []LoadRow   // loads.csv in file order
	Windows []WindowRow // windows.csv in file order
	Checks  []CheckLine // checks.txt without its TOTAL lines
	Sizes   []SizeRow   // sizes.txt
	Env     []KV        // env.txt, each key's latest value, in first-seen order

	// Invocations are the times of env.txt's "# invocation" headers.
	Invocations []time.Time
	// LastWrite is the latest modification time of the measured files
	// (CSV, checks, sizes, env), the end of the run as far as the
	// directory tells.
	LastWrite time.Time

	Plans    []string // file names under plans/, sorted
	Logs     []string // file names under logs/, sorted
	Findings string   // findings.md, hand-written

	OpenLoop  []OpenLoopRow  // openloop.csv in file order
	Memory    []MemoryRow    // memory.csv in file order
	Noise     []NoiseRow     // noise.csv in file order
	Precision []PrecisionRow // precision.csv in file order
	// Hlogs is the index of hdr/: each HDR log's intervals by file name
	// (HlogName). A log that does not read (a run stopped mid-write) is
	// left out, as if the point had none.
	Hlogs map[string][]*hdrhistogram.Histogram
	// Fingerprints is fingerprints.json, nil when the run has none (the
	// seed suite's runs).
	Fingerprints *Fingerprints

	// Outputs are the files of the kinds that registered their own
	// (RegisterOutput), by output name.
	Outputs map[string]any

	// Files says which of the run's files the directory held when it was
	// loaded (absent and empty differ to compare: "no raw.csv").
	Files map[string]bool
}

// loadedFiles are the files whose presence Run.Files records.
var loadedFiles = []string{TimingsFile, RawFile, LoadsFile, WindowsFile, ChecksFile, SizesFile, EnvFile, FindingsMD,
	OpenLoopFile, MemoryFile, NoiseFile, PrecisionFile, FingerprintsFile}

// Has reports whether the directory held the file name when loaded.
func (r *Run) Has(name string) bool { return r.Files[name] }

// Load reads every file of the results directory dir.
func Load(dir string) (*Run, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("results: load: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("results: load: %s is not a directory", dir)
	}
	r := &Run{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	var errs []error
	keep := func(err error) { errs = append(errs, MissingIsEmpty(err)) }

	// raw.csv, the largest file by far, is read beside the others.
	var rawErr error
	rawDone := make(chan struct{})
	go func() {
		defer close(rawDone)
		r.Raw, rawErr = ReadRaw(dir)
	}()
	r.Timings, err = ReadTimings(dir)
	keep(err)
	r.Loads, err = ReadLoads(dir)
	keep(err)
	r.Windows, err = ReadWindows(dir)
	keep(err)
	r.Checks, err = readChecks(dir)
	keep(err)
	r.Sizes, err = readSizes(dir)
	keep(err)
	r.Env, err = ReadEnv(dir)
	keep(err)
	r.Invocations, err = readInvocations(dir)
	keep(err)
	r.Plans, err = listFiles(filepath.Join(dir, PlansDir))
	keep(err)
	r.Logs, err = listFiles(filepath.Join(dir, LogsDir))
	keep(err)
	b, err := os.ReadFile(filepath.Join(dir, FindingsMD))
	keep(err)
	r.Findings = strings.TrimSpace(string(b))
	r.OpenLoop, err = ReadOpenLoop(dir)
	keep(err)
	r.Memory, err = ReadMemory(dir)
	keep(err)
	r.Noise, err = ReadNoise(dir)
	keep(err)
	r.Precision, err = ReadPrecision(dir)
	keep(err)
	r.Outputs = map[string]any{}
	for _, o := range outputs {
		v, err := o.Read(dir)
		if err != nil {
			keep(fmt.Errorf("results: %s: %w", o.Name, err))
			continue
		}
		r.Outputs[o.Name] = v
	}
	r.Hlogs, err = readHlogs(filepath.Join(dir, HdrDir))
	keep(err)
	r.Fingerprints, err = ReadFingerprints(dir)
	if !errors.Is(err, ErrNoFingerprints) {
		keep(err)
	}
	<-rawDone
	keep(rawErr)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r.Files = map[string]bool{}
	for _, name := range slices.Concat(loadedFiles, outputFiles()) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			r.Files[name] = true
		}
	}
	for _, name := range []string{TimingsFile, RawFile, LoadsFile, WindowsFile, ChecksFile, SizesFile, EnvFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && st.ModTime().After(r.LastWrite) {
			r.LastWrite = st.ModTime()
		}
	}
	if v := r.EnvValue("run"); v != "" {
		r.Name = v
	}
	return r, nil
}

// EnvValue returns env.txt's latest value of key, "" when absent.
func (r *Run) EnvValue(key string) string {
	for _, kv := range r.Env {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Points returns the timings with only the last row of each point (a
// rerun supersedes), at the position of that last row.
func (r *Run) Points() []Row { return LastPerKey(r.Timings, Row.Key) }

// LatestLoads returns the last load of each (backend, scale).
func (r *Run) LatestLoads() []LoadRow {
	return LastPerKey(r.Loads, func(l LoadRow) [2]string { return [2]string{l.Backend, l.Scale} })
}

// LatestSizes returns the last size of each (scale, backend).
func (r *Run) LatestSizes() []SizeRow {
	return LastPerKey(r.Sizes, func(s SizeRow) [2]string { return [2]string{s.Scale, s.Backend} })
}

// Started is the first invocation's time, zero when env.txt has none.
func (r *Run) Started() time.Time {
	if len(r.Invocations) == 0 {
		return time.Time{}
	}
	return r.Invocations[0]
}

// Backends returns the backend names of the run's rows, sorted.
func (r *Run) Backends() []string {
	seen := map[string]bool{}
	for _, x := range r.Timings {
		seen[x.Backend] = true
	}
	for _, x := range r.Loads {
		seen[x.Backend] = true
	}
	for _, x := range r.Sizes {
		seen[x.Backend] = true
	}
	for _, c := range r.Checks {
		seen[c.Backend] = true
	}
	out := make([]string, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// Scales returns the run's scales, smallest dataset first.
func (r *Run) Scales() []string {
	return ByRank(ScaleRanks(r.Timings, r.Loads, r.Sizes))
}

// readInvocations returns the times of env.txt's invocation headers.
func readInvocations(dir string) ([]time.Time, error) {
	var out []time.Time
	err := readLines(filepath.Join(dir, EnvFile), func(line string) {
		if v, ok := strings.CutPrefix(line, "# invocation "); ok {
			if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
				out = append(out, t)
			}
		}
	})
	return out, err
}

// readHlogs reads every HDR log in dir by file name; one that does not
// read is left out (see Run.Hlogs).
func readHlogs(dir string) (map[string][]*hdrhistogram.Histogram, error) {
	names, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]*hdrhistogram.Histogram{}
	for _, n := range names {
		if !strings.HasSuffix(n, ".hlog") {
			continue
		}
		if hs, err := ReadHlog(filepath.Join(dir, n)); err == nil {
			out[n] = hs
		}
	}
	return out, nil
}

// listFiles returns the plain file names in dir, sorted.
func listFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("results: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// ScaleRanks orders scales by size (their smallest datom count), then by
// first appearance: "s" before "m" though not alphabetically.
func ScaleRanks(timings []Row, loads []LoadRow, sizes []SizeRow) map[string]int {
	type info struct {
		nd    int64
		first int
	}
	m := map[string]*info{}
	see := func(scale string, nd int64) {
		in := m[scale]
		if in == nil {
			in = &info{first: len(m)}
			m[scale] = in
		}
		if nd > 0 && (in.nd == 0 || nd < in.nd) {
			in.nd = nd
		}
	}
	for _, r := range timings {
		see(r.Scale, r.NDatoms)
	}
	for _, l := range loads {
		see(l.Scale, l.NDatoms)
	}
	for _, s := range sizes {
		see(s.Scale, 0)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		x, y := m[a], m[b]
		if (x.nd == 0) != (y.nd == 0) {
			if x.nd == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(x.nd, y.nd), cmp.Compare(x.first, y.first))
	})
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	return rank
}

// ByRank lists the scales of a ScaleRanks in rank order.
func ByRank(rank map[string]int) []string {
	out := make([]string, len(rank))
	for n, i := range rank {
		out[i] = n
	}
	return out
}

// BackendSetting is one backend.<name>.<scale>.<key> of env.txt with its
// value per scale.
type BackendSetting struct {
	Backend string
	Key     string            // driver, version, setting.<name>, option.<name>, settings_error
	Values  map[string]string // by scale
}

// Value is the setting's value when all scales agree, else each scale's.
func (s BackendSetting) Value(scales []string) string {
	var parts []string
	first, same := "", true
	for _, sc := range scales {
		v, ok := s.Values[sc]
		if !ok {
			continue
		}
		if len(parts) == 0 {
			first = v
		} else if v != first {
			same = false
		}
		parts = append(parts, sc+": "+v)
	}
	if same {
		return first
	}
	return strings.Join(parts, "; ")
}

// BackendSettings returns env.txt's backend.* keys grouped by backend and
// key: driver and version first, then settings, then options. The cache
// setting's name (CacheSettingKey) is a fact of the driver, left out.
func (r *Run) BackendSettings() []BackendSetting {
	var out []BackendSetting
	at := map[[2]string]int{}
	for _, kv := range r.Env {
		rest, ok := strings.CutPrefix(kv.Key, "backend.")
		if !ok {
			continue
		}
		// backend.<name>.<scale>.<key>: names and scales are tokens
		// without dots; the key may hold dots (setting.a.b).
		f := strings.SplitN(rest, ".", 3)
		if len(f) < 3 || f[2] == CacheSettingKey {
			continue
		}
		k := [2]string{f[0], f[2]}
		i, seen := at[k]
		if !seen {
			i = len(out)
			at[k] = i
			out = append(out, BackendSetting{Backend: f[0], Key: f[2], Values: map[string]string{}})
		}
		out[i].Values[f[1]] = kv.Value
	}
	order := func(key string) int {
		switch {
		case key == "driver":
			return 0
		case key == "version":
			return 1
		case strings.HasPrefix(key, "setting."):
			return 2
		case strings.HasPrefix(key, "option."):
			return 3
		}
		return 4
	}
	slices.SortStableFunc(out, func(x, y BackendSetting) int {
		return cmp.Or(cmp.Compare(x.Backend, y.Backend), cmp.Compare(order(x.Key), order(y.Key)))
	})
	return out
}
