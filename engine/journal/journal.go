// Package journal is a run's record of what is on disk (logs/done.log):
// as the run goes, each rep and each point whose rows are on disk and
// each scenario whose checks are, with the size every results file had
// then. apply -resume reads it back: the files are cut to the sizes of
// the last record (what came after, the rows of a rep cut short by the
// interrupt, is kept under interrupted/, never lost) and the recorded
// reps, points and checks are not run again, so a resumed run measures
// every (point, rep) exactly once.
//
// The record is a line of tab-separated fields, synced to disk before the
// next rep starts:
//
//	plan	<digest of the plan and of every input>
//	input	<sha256 of the file as read>	<absolute path>
//	start	<sizes>
//	rep	<scale>	<backend>	<scenario>	<point index>	<rep>	<sizes>
//	point	<scale>	<backend>	<scenario>	<point index>	<sizes>
//	checked	<scale>	<backend>	<scenario>	<sizes>
//
// <sizes> is "file=bytes" of every results file, comma-separated. A rep
// record is written once the rep's rows are on disk and what the point's
// summary needs of it is saved (reps.go): a rep of an interleaved point
// is followed by reps of other points before its point is whole.
package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mentat-spec/mentat-spec/engine/plan"
)

// File is where a run keeps its journal, in its results directory.
const File = "logs/done.log"

// interruptedDir holds what a resume cut from the results files.
const interruptedDir = "interrupted"

// Journal is a run's done.log. Safe for concurrent use; a nil Journal
// records nothing and has no records.
type Journal struct {
	root string
	mu   sync.Mutex
	f    *os.File
	// done holds the records of the run resumed, by key; cells the cells
	// (scale/backend) that have any; reps the last rep recorded of each
	// point not recorded whole, by point key; started the sizes of the
	// start record.
	done    map[string]bool
	cells   map[string]bool
	reps    map[string]int
	saved   map[string][][]byte
	started map[string]int64
	// off is set once a record could not be written: a later record would
	// cover rows of a point the journal does not name.
	off bool
}

func pointKey(scale, backend, scenario string, index int) string {
	return strings.Join([]string{"point", scale, backend, scenario, strconv.Itoa(index)}, "\t")
}

func checkedKey(scale, backend, scenario string) string {
	return strings.Join([]string{"checked", scale, backend, scenario}, "\t")
}

func newJournal(root string) *Journal {
	return &Journal{root: root, done: map[string]bool{}, cells: map[string]bool{}, reps: map[string]int{}}
}

// Start begins the journal of a new run in root, replacing any
// earlier one: a rerun into the same directory resumes from its own
// records. inputs are the files the plan was made from, each as read.
func Start(root, digest string, inputs []plan.Input) (*Journal, error) {
	path := filepath.Join(root, File)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	// The saved reps of an earlier run into this directory are not this
	// run's.
	if err := clearReps(root); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := newJournal(root)
	j.f = f
	lines := []string{"plan\t" + digest}
	for _, in := range inputs {
		l, err := inputLine(in)
		if err != nil {
			f.Close()
			return nil, err
		}
		lines = append(lines, l)
	}
	if err := j.append(strings.Join(lines, "\n")); err != nil {
		f.Close()
		return nil, err
	}
	return j, j.record("start")
}

// Resume reads root's journal for plan digest, made from inputs, cuts
// the results files back to its last record (moving what follows under
// interrupted/) and returns the journal, appending.
func Resume(root, digest string, inputs []plan.Input) (*Journal, error) {
	path := filepath.Join(root, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no record of an interrupted run (%s): -resume continues a run of this version's apply into the same directory", root, File)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := newJournal(root)
	var sizes map[string]int64
	// Records are written a line at a time and synced: a last line
	// without its newline was torn by a crash, and the one before stands.
	text := string(b)
	if i := strings.LastIndexByte(text, '\n'); i < len(text)-1 {
		text = text[:i+1]
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if f := strings.Split(lines[0], "\t"); len(f) != 2 || f[0] != "plan" {
		return nil, fmt.Errorf("%s: not a run journal (first line %q)", path, lines[0])
	}
	// Every input first: a changed file is named, which a digest cannot.
	read := map[string]bool{}
	for i, l := range lines[1:] {
		if !strings.HasPrefix(l, "input\t") {
			break
		}
		p, err := checkInput(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+2, err)
		}
		read[p] = true
	}
	if strings.TrimPrefix(lines[0], "plan\t") != digest {
		why := "the spec, its variables, the selection or the queries changed"
		for _, in := range inputs {
			if !read[in.Path] {
				why = "input file " + in.Path + " was not read by the interrupted run"
				break
			}
		}
		return nil, fmt.Errorf("the spec's plan is not the one of the run in %s (%s): -resume needs the same command line and inputs", root, why)
	}
	for i, l := range lines[1:] {
		i++
		f := strings.Split(l, "\t")
		switch {
		case len(f) == 3 && f[0] == "input":
			continue
		case len(f) == 2 && f[0] == "start":
			if j.started, err = parseSizes(f[1]); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
			}
		case len(f) == 7 && f[0] == "rep":
			n, err := strconv.Atoi(f[5])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s:%d: not a journal record: %q", path, i+1, l)
			}
			j.reps[strings.Join(append([]string{"point"}, f[1:5]...), "\t")] = n
			j.cells[f[1]+"/"+f[2]] = true
		case len(f) == 6 && f[0] == "point":
			j.done[strings.Join(f[:5], "\t")] = true
			delete(j.reps, strings.Join(f[:5], "\t"))
			j.cells[f[1]+"/"+f[2]] = true
		case len(f) == 5 && f[0] == "checked":
			j.done[strings.Join(f[:4], "\t")] = true
			j.cells[f[1]+"/"+f[2]] = true
		default:
			return nil, fmt.Errorf("%s:%d: not a journal record: %q", path, i+1, l)
		}
		if sizes, err = parseSizes(f[len(f)-1]); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
	}
	if sizes == nil {
		return nil, fmt.Errorf("%s records no state of the run to resume from", path)
	}
	if err := j.loadReps(); err != nil {
		return nil, err
	}
	if err := cutBack(root, sizes); err != nil {
		return nil, err
	}
	// The torn record, if any, goes: the journal ends at its last whole one.
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if j.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return j, nil
}

// Started is the size results file name had when the resumed run
// started (0 when it had none): what came before is another run's.
func (j *Journal) Started(name string) int64 {
	if j == nil {
		return 0
	}
	return j.started[name]
}

// HasPoint and HasCheck say whether the resumed run recorded them.
func (j *Journal) HasPoint(scale, backend, scenario string, index int) bool {
	return j != nil && j.done[pointKey(scale, backend, scenario, index)]
}

func (j *Journal) HasCheck(scale, backend, scenario string) bool {
	return j != nil && j.done[checkedKey(scale, backend, scenario)]
}

// ResumedCell says whether the run resumed had begun the cell: its
// plans, env lines and sizes are on disk already.
func (j *Journal) ResumedCell(name string) bool { return j != nil && j.cells[name] }

// Point and Check record that a point's rows, a scenario's check lines,
// are on disk.
func (j *Journal) Point(scale, backend, scenario string, index int) error {
	key := pointKey(scale, backend, scenario, index)
	if err := j.record(key); err != nil {
		return err
	}
	j.dropReps(key)
	return nil
}

func (j *Journal) Check(scale, backend, scenario string) error {
	return j.record(checkedKey(scale, backend, scenario))
}

func (j *Journal) record(what string) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.off {
		return nil
	}
	sizes, err := fileSizes(j.root)
	if err == nil {
		err = j.write(what + "\t" + sizes)
	}
	if err != nil {
		j.off = true
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

func (j *Journal) append(line string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.write(line)
}

func (j *Journal) write(line string) error {
	if _, err := j.f.WriteString(line + "\n"); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

func (j *Journal) Close() {
	if j != nil && j.f != nil {
		j.f.Close()
	}
}

// tracked lists the results files a journal records, relative to root:
// the rows and lines a run appends (*.csv, *.txt), the HDR logs and the
// plans. Files written whole at the end (summary.md, report.html,
// results.json) or at the start (fingerprints.json, truth) are not.
func tracked(root string) ([]string, error) {
	var out []string
	top, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".csv") || strings.HasSuffix(e.Name(), ".txt")) {
			out = append(out, e.Name())
		}
	}
	for _, sub := range []string{"hdr", "plans"} {
		es, err := os.ReadDir(filepath.Join(root, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Type().IsRegular() {
				out = append(out, sub+"/"+e.Name())
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func fileSizes(root string) (string, error) {
	names, err := tracked(root)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		st, err := os.Stat(filepath.Join(root, n))
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(n, "=,\t\n") {
			return "", fmt.Errorf("results file %q: a name the journal cannot record", n)
		}
		parts = append(parts, n+"="+strconv.FormatInt(st.Size(), 10))
	}
	return strings.Join(parts, ","), nil
}

func parseSizes(s string) (map[string]int64, error) {
	out := map[string]int64{}
	if s == "" {
		return out, nil
	}
	for _, p := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(p, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil || n < 0 || name == "" || strings.Contains(name, "..") || filepath.IsAbs(name) {
			return nil, fmt.Errorf("bad file size %q", p)
		}
		out[name] = n
	}
	return out, nil
}

// cutBack cuts every tracked file of root to its recorded size and moves
// files the record does not know under interrupted/; what is cut is
// appended to interrupted/<file>. A file shorter than recorded was not
// written by the run resumed alone: nothing is touched then.
func cutBack(root string, sizes map[string]int64) error {
	names, err := tracked(root)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for _, n := range names {
		st, err := os.Stat(filepath.Join(root, n))
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		if want, ok := sizes[n]; ok && st.Size() < want {
			return fmt.Errorf("resume: %s has %d bytes, fewer than the %d the interrupted run recorded: it was changed since; not resuming", n, st.Size(), want)
		}
	}
	for _, n := range names {
		path := filepath.Join(root, n)
		want, known := sizes[n]
		if !known {
			if err := moveAside(root, n); err != nil {
				return err
			}
			continue
		}
		if err := cutTail(root, n, path, want); err != nil {
			return err
		}
	}
	return nil
}

func cutTail(root, name, path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if st.Size() == size {
		return nil
	}
	if err := appendAside(root, name, io.NewSectionReader(f, size, st.Size()-size)); err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("resume: cutting %s back: %w", name, err)
	}
	return nil
}

func moveAside(root, name string) error {
	f, err := os.Open(filepath.Join(root, name))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	err = appendAside(root, name, bufio.NewReader(f))
	f.Close()
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(root, name)); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return nil
}

// appendAside appends r to interrupted/<name>.
func appendAside(root, name string, r io.Reader) error {
	dst := filepath.Join(root, interruptedDir, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return fmt.Errorf("resume: keeping the cut rows of %s: %w", name, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	return nil
}
