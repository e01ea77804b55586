// Package journal is a run's record of what is on disk (logs/done.log):
// as the run goes, each point whose rows are on disk and each scenario
// whose checks are, with the size every results file had then. apply -resume reads it back: the
// files are cut to the sizes of the last record (what came after, the
// rows of a point cut short by the interrupt, is kept under interrupted/,
// never lost) and the recorded points and checks are not run again, so a
// resumed run measures every point exactly once.
//
// The record is a line of tab-separated fields, synced to disk before the
// next point starts:
//
//	plan	<digest of the plan's text>
//	start	<sizes>
//	point	<scale>	<backend>	<scenario>	<point index>	<sizes>
//	checked	<scale>	<backend>	<scenario>	<sizes>
//
// <sizes> is "file=bytes" of every results file, comma-separated.
package journal

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
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
	// (scale/backend) that have any.
	done  map[string]bool
	cells map[string]bool
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

// PlanDigest identifies the plan a journal belongs to: its text, which
// names every cell, scenario and point in run order.
func PlanDigest(p *plan.Plan) (string, error) {
	h := sha256.New()
	if err := p.Render(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Start begins the journal of a new run in root, replacing any
// earlier one: a rerun into the same directory resumes from its own
// records.
func Start(root, digest string) (*Journal, error) {
	path := filepath.Join(root, File)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{root: root, f: f, done: map[string]bool{}, cells: map[string]bool{}}
	if err := j.append("plan\t" + digest); err != nil {
		f.Close()
		return nil, err
	}
	return j, j.record("start")
}

// Resume reads root's journal for plan digest, cuts the results
// files back to its last record (moving what follows under
// interrupted/) and returns the journal, appending.
func Resume(root, digest string) (*Journal, error) {
	path := filepath.Join(root, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no record of an interrupted run (%s): -resume continues a run of this version's apply into the same directory", root, File)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{root: root, done: map[string]bool{}, cells: map[string]bool{}}
	var sizes map[string]int64
	// Records are written a line at a time and synced: a last line
	// without its newline was torn by a crash, and the one before stands.
	text := string(b)
	if i := strings.LastIndexByte(text, '\n'); i < len(text)-1 {
		text = text[:i+1]
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		f := strings.Split(l, "\t")
		switch {
		case i == 0:
			if len(f) != 2 || f[0] != "plan" {
				return nil, fmt.Errorf("%s: not a run journal (first line %q)", path, l)
			}
			if f[1] != digest {
				return nil, fmt.Errorf("the spec's plan is not the one of the run in %s (the spec, its variables or the selection changed): -resume needs the same command line", root)
			}
			continue
		case len(f) == 2 && f[0] == "start":
		case len(f) == 6 && f[0] == "point":
			j.done[strings.Join(f[:5], "\t")] = true
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
	return j.record(pointKey(scale, backend, scenario, index))
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
