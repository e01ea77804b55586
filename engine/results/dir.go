package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// File names inside a results directory.
const (
	TimingsFile = "timings.csv"
	RawFile     = "raw.csv"
	LoadsFile   = "loads.csv"
	ChecksFile  = "checks.txt"
	SizesFile   = "sizes.txt"
	EnvFile     = "env.txt"
	SummaryFile = "summary.md"
	FindingsMD  = "findings.md"
	PlansDir    = "plans"
	LogsDir     = "logs"
)

var csvHeaders = map[string]string{TimingsFile: TimingsHeader, RawFile: RawHeader, LoadsFile: LoadsHeader}

// Dir appends to one results directory. It is safe for concurrent use.
type Dir struct {
	path string
	now  func() time.Time

	mu     sync.Mutex
	files  map[string]*os.File
	buf    []byte
	inFile CheckCounts // check lines in checks.txt, for its TOTAL line
	added  CheckCounts // checks appended through this Dir
	closed bool
}

// CheckCounts counts check verdicts.
type CheckCounts struct{ Pass, Fail, Skip, Threshold int }

// Add counts one check line's status.
func (c *CheckCounts) Add(status string) {
	switch status {
	case Pass:
		c.Pass++
	case Fail:
		c.Fail++
	case Skip:
		c.Skip++
	case Threshold:
		c.Threshold++
	}
}

// Total is the number of checks counted.
func (c CheckCounts) Total() int { return c.Pass + c.Fail + c.Skip + c.Threshold }

// Open creates dir (and plans/, logs/) or opens an existing one to append
// to. It refuses a directory whose CSV headers are not this format.
func Open(dir string) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("results: empty directory name")
	}
	for _, sub := range []string{PlansDir, LogsDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("results: create %s: %w", dir, err)
		}
	}
	for name, want := range csvHeaders {
		if err := checkHeader(filepath.Join(dir, name), want); err != nil {
			return nil, err
		}
	}
	d := &Dir{path: dir, now: time.Now, files: map[string]*os.File{}}
	checks, err := readChecks(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, c := range checks {
		d.inFile.Add(c.Status)
	}
	return d, nil
}

// Path returns the directory.
func (d *Dir) Path() string { return d.path }

func checkHeader(path, want string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	// Bounded: a header is one short line, and a device or a corrupt file
	// must not be read without end.
	line, err := bufio.NewReader(io.LimitReader(f, 1<<16)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("results: read %s: %w", path, err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line != "" && line != want {
		return fmt.Errorf("results: %s has header %q, want %q: not a results file of this format", path, clip(line, len(want)+16), want)
	}
	return nil
}

// clip shortens s to at most n bytes (on a rune boundary) for an error
// message, saying how long it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (%d bytes)", len(s))
}

// file opens name for appending once: a new file gets its header, a torn
// last line (a crash mid-write) gets its newline so the next row is whole.
func (d *Dir) file(name string) (*os.File, error) {
	if d.closed {
		return nil, fmt.Errorf("results: append to %s: directory closed", name)
	}
	if f := d.files[name]; f != nil {
		return f, nil
	}
	path := filepath.Join(d.path, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %w", err)
	}
	var fix []byte
	if st.Size() == 0 {
		if h, ok := csvHeaders[name]; ok {
			fix = []byte(h + "\n")
		}
	} else {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err != nil {
			f.Close()
			return nil, fmt.Errorf("results: read %s: %w", path, err)
		}
		if last[0] != '\n' {
			fix = []byte{'\n'}
		}
	}
	if fix != nil {
		if _, err := f.Write(fix); err != nil {
			f.Close()
			return nil, fmt.Errorf("results: write %s: %w", path, err)
		}
	}
	d.files[name] = f
	return f, nil
}

// write appends one built line with a single write, so concurrent
// invocations sharing the directory never interleave inside a row. A
// write cut short (a full disk, a file size limit) is taken back, so the
// rows before it stay whole and the next run appends after them.
func (d *Dir) write(name string, line []byte) error {
	f, err := d.file(name)
	if err != nil {
		return err
	}
	line = redact.Bytes(line) // every row of every file passes here
	var size int64 = -1
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	n, err := f.Write(line)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("results: append to %s: %w", filepath.Join(d.path, name), err)
	if n > 0 && size >= 0 {
		// Only when no other invocation appended meanwhile.
		if st, serr := f.Stat(); serr == nil && st.Size() == size+int64(n) {
			if terr := f.Truncate(size); terr != nil {
				err = fmt.Errorf("%w (and removing the %d bytes of the cut row failed: %w)", err, n, terr)
			}
		}
	}
	return err
}

func checkKey(what string, fields ...string) error {
	for _, f := range fields {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf("results: %s row with an empty key field: %q", what, strings.Join(fields, ","))
		}
	}
	return nil
}

// AppendRaw appends one rep to raw.csv.
func (d *Dir) AppendRaw(r Row) error {
	if err := checkKey("raw", r.Scenario, r.Backend, r.Scale, r.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendRaw(d.buf[:0], r)
	return d.write(RawFile, d.buf)
}

// AppendTiming appends the median of a point to timings.csv.
func (d *Dir) AppendTiming(r Row) error {
	if err := checkKey("timing", r.Scenario, r.Backend, r.Scale, r.Op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendTiming(d.buf[:0], r)
	return d.write(TimingsFile, d.buf)
}

// AppendLoad appends a bulk load to loads.csv.
func (d *Dir) AppendLoad(r LoadRow) error {
	if err := checkKey("load", r.Backend, r.Scale); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendLoad(d.buf[:0], r)
	return d.write(LoadsFile, d.buf)
}

// AppendCheck appends a correctness check to checks.txt.
func (d *Dir) AppendCheck(c CheckLine) error {
	if !validStatus(c.Status) {
		return fmt.Errorf("results: check %q: status %q, want PASS, FAIL, SKIP or THRESHOLD", c.Name, c.Status)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendCheck(d.buf[:0], c)
	if err := d.write(ChecksFile, d.buf); err != nil {
		return err
	}
	d.inFile.Add(c.Status)
	d.added.Add(c.Status)
	return nil
}

// AppendSize appends a store size to sizes.txt.
func (d *Dir) AppendSize(s SizeRow) error {
	if err := checkKey("size", s.Scale, s.Backend); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.buf = appendSize(d.buf[:0], s)
	return d.write(SizesFile, d.buf)
}

// WriteEnv appends one invocation's environment to env.txt: a header line
// with the UTC time, then the entries in order. The value of a key is
// redacted when sensitive says so or DefaultSensitive does; passwords
// inside values (URLs, key=value DSNs) are scrubbed too.
func (d *Dir) WriteEnv(kvs []KV, sensitive func(key string) bool) error {
	return d.writeEnv(true, kvs, sensitive)
}

// WriteEnvLines appends entries to the current invocation's env.txt
// section (no header), e.g. a backend's version once it is open.
func (d *Dir) WriteEnvLines(kvs []KV, sensitive func(key string) bool) error {
	return d.writeEnv(false, kvs, sensitive)
}

func (d *Dir) writeEnv(header bool, kvs []KV, sensitive func(key string) bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := d.buf[:0]
	if header {
		b = append(b, "# invocation "...)
		b = d.now().UTC().AppendFormat(b, time.RFC3339)
		b = append(b, '\n')
	}
	for _, kv := range kvs {
		key := strings.TrimSpace(OneLine(kv.Key))
		if key == "" {
			continue
		}
		v := kv.Value
		if DefaultSensitive(key) || (sensitive != nil && sensitive(key)) {
			v = redacted
		} else {
			v = scrub(v)
		}
		b = append(b, key...)
		b = append(b, ": "...)
		b = append(b, escapeValue(v)...)
		b = append(b, '\n')
	}
	d.buf = b
	if len(b) == 0 {
		return nil
	}
	return d.write(EnvFile, b)
}

const redacted = "(redacted)"

var (
	secretKey    = regexp.MustCompile(`(?i)pass(word|wd)?|secret|token|dsn|credential|api_?key|private_?key|conn(ection)?_?str|auth`)
	urlPassword  = regexp.MustCompile(`(://[^/\s:@]*):[^@\s/]*@`)
	pairPassword = regexp.MustCompile(`(?i)\b(password|pwd|passwd)\s*=\s*('[^']*'|"[^"]*"|\S+)`)
)

// DefaultSensitive reports keys whose values are never written: anything
// that looks like a password, secret, token, DSN or credential.
func DefaultSensitive(key string) bool { return secretKey.MatchString(key) }

func scrub(v string) string {
	v = urlPassword.ReplaceAllString(v, "$1:"+redacted+"@")
	return pairPassword.ReplaceAllString(v, "$1="+redacted)
}

func escapeValue(v string) string {
	if !strings.ContainsAny(v, "\r\n\\") {
		return v
	}
	return strings.NewReplacer(`\`, `\\`, "\r", `\r`, "\n", `\n`).Replace(v)
}

// Plan opens plans/<name> for appending (see ScenarioPlanName).
func (d *Dir) Plan(name string) (io.WriteCloser, error) {
	return d.openSub(PlansDir, name)
}

// Log opens logs/<name>.log for appending.
func (d *Dir) Log(name string) (io.WriteCloser, error) {
	return d.openSub(LogsDir, name+".log")
}

func (d *Dir) openSub(sub, name string) (io.WriteCloser, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("results: %s file name %q must be a plain file name", sub, name)
	}
	f, err := os.OpenFile(filepath.Join(d.path, sub, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return redact.NewWriter(f), nil
}

// Close writes the TOTAL line of checks.txt (counting the whole file)
// when this Dir added checks or the file does not exist yet, then syncs
// and closes the files. It returns
// the verdicts of the checks added through this Dir, which decide the
// invocation's exit status. Later appends fail.
func (d *Dir) Close() (CheckCounts, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return d.added, nil
	}
	// checks.txt always exists with its TOTAL line: a run that checked
	// nothing says so rather than leave no file. An invocation that adds
	// no check to an existing file adds no TOTAL.
	var errs []error
	if _, err := os.Stat(filepath.Join(d.path, ChecksFile)); d.added.Total() > 0 || errors.Is(err, fs.ErrNotExist) {
		b := append(d.buf[:0], "TOTAL "...)
		b = appendCounts(b, d.inFile)
		d.buf = append(b, '\n')
		errs = append(errs, d.write(ChecksFile, d.buf))
	}
	d.closed = true
	for name, f := range d.files {
		if err := f.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("results: sync %s: %w", name, err))
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("results: close %s: %w", name, err))
		}
	}
	d.files = nil
	return d.added, errors.Join(errs...)
}

// String is the counts as checks.txt's TOTAL line writes them:
// "N PASS, N FAIL, N SKIP[, N THRESHOLD]".
func (c CheckCounts) String() string { return string(appendCounts(nil, c)) }

// appendCounts writes "N PASS, N FAIL, N SKIP".
func appendCounts(b []byte, c CheckCounts) []byte {
	b = strconv.AppendInt(b, int64(c.Pass), 10)
	b = append(b, " PASS, "...)
	b = strconv.AppendInt(b, int64(c.Fail), 10)
	b = append(b, " FAIL, "...)
	b = strconv.AppendInt(b, int64(c.Skip), 10)
	b = append(b, " SKIP"...)
	if c.Threshold > 0 { // older readers know three counts
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(c.Threshold), 10)
		b = append(b, " THRESHOLD"...)
	}
	return b
}

func validStatus(s string) bool { return s == Pass || s == Fail || s == Skip || s == Threshold }
