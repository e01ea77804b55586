// Package crosscheck compares answers across backends: every check
// case's answer (same query, same parameters, same committed writes) on
// each backend of a scale is compared with the first backend's answer,
// whether or not the check's expectation passed. Answers are normalised as checks compare values
// (checks.Key: numbers across int64, float and decimal text, booleans,
// nulls) and, since no check kind looks at row order, compared as sorted
// rows with columns in name order. Backends run one after the other, so
// the first backend's answers are kept until the scale's last backend has
// run: a digest and the first rows in memory, and the whole sorted answer
// in a file of the run's own when it is longer, so memory stays flat at
// any scale and a difference can still be shown row by row. Answers are
// compared within one invocation only: a rerun into the same results
// directory never compares with answers of another run.
package crosscheck

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mentat-spec/mentat-spec/checks"
	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// crossKeep is how many rows of an answer are kept in memory; longer
// answers are also written to a file.
const crossKeep = 32

// Scale collects a scale's answers.
type Scale struct {
	scale  string
	parent string // the results directory
	dir    string // the spill directory in it, created on first use
	nfiles int
	order  []crossID
	checks map[crossID]*crossCheck
}

type crossID struct{ scenario, check string }

// crossCheck is one check's answers over the scale's backends.
type crossCheck struct {
	backends []string // that answered a case, in run order
	order    []string // case identities in first-seen order
	cases    map[string]*crossCase
}

type crossCase struct {
	label    string
	ref      *answer           // the first backend's answer
	compared []string          // backends compared with ref
	diff     map[string]string // backend -> its first difference from ref
}

// answer is one backend's answer to one case, canonical.
type answer struct {
	backend string
	columns string   // lower-cased column names in sorted order
	n       int      // rows
	digest  [32]byte // over columns and sorted rows
	head    []string // the first crossKeep sorted rows
	file    string   // every sorted row, one per line, when n > crossKeep
}

// canonical returns the answer's sorted rows, each one line, and its
// column header. Columns are put in name order so that dialects that
// select them in another order still agree.
func canonical(columns []string, rows [][]any) (string, []string) {
	width := len(columns)
	if width == 0 && len(rows) > 0 {
		width = len(rows[0])
	}
	names := make([]string, width)
	for i := range names {
		if i < len(columns) {
			names[i] = strings.ToLower(columns[i])
		} else {
			names[i] = strconv.Itoa(i + 1)
		}
	}
	perm := make([]int, width)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	sorted := make([]string, width)
	for i, p := range perm {
		sorted[i] = names[p]
	}
	lines := make([]string, len(rows))
	var sb strings.Builder
	for r, row := range rows {
		sb.Reset()
		sb.WriteByte('(')
		for i, p := range perm {
			if i > 0 {
				sb.WriteString(", ")
			}
			var v any
			if p < len(row) {
				v = row[p]
			}
			sb.WriteString(showKey(checks.Key(v)))
		}
		sb.WriteByte(')')
		lines[r] = sb.String()
	}
	slices.Sort(lines)
	return strings.Join(sorted, ", "), lines
}

// showKey prints a canonical value: numbers bare, null as null, text
// quoted (so a row is one line and "1" the text is told from nothing).
func showKey(k string) string {
	if k == "\x00null" {
		return "null"
	}
	if _, err := strconv.ParseFloat(k, 64); err == nil && strings.TrimSpace(k) == k {
		return k
	}
	return strconv.Quote(k)
}

func digestOf(columns string, lines []string) [32]byte {
	h := sha256.New()
	h.Write([]byte(columns))
	for _, l := range lines {
		h.Write([]byte{'\n'})
		h.Write([]byte(l))
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

// Record adds backend's answer to a case of a check, comparing it with
// the first backend's answer to the same case.
func (x *Scale) Record(backend, scenario, check, caseID, label string, columns []string, rows [][]any) error {
	id := crossID{scenario, check}
	ck := x.checks[id]
	if ck == nil {
		ck = &crossCheck{cases: map[string]*crossCase{}}
		x.checks[id] = ck
		x.order = append(x.order, id)
	}
	if !slices.Contains(ck.backends, backend) {
		ck.backends = append(ck.backends, backend)
	}
	cols, lines := canonical(columns, rows)
	a := &answer{backend: backend, columns: cols, n: len(lines), digest: digestOf(cols, lines)}
	cc := ck.cases[caseID]
	if cc == nil {
		a.head = lines[:min(len(lines), crossKeep)]
		if len(lines) > crossKeep {
			f, err := x.spill(lines)
			if err != nil {
				return err
			}
			a.file = f
		}
		ck.cases[caseID] = &crossCase{label: label, ref: a, diff: map[string]string{}}
		ck.order = append(ck.order, caseID)
		return nil
	}
	if cc.ref.backend == backend || slices.Contains(cc.compared, backend) {
		return nil // a case met twice (the same check twice in a scenario)
	}
	cc.compared = append(cc.compared, backend)
	if a.digest == cc.ref.digest && a.n == cc.ref.n {
		return nil
	}
	d, err := firstDifference(cc.ref, a, lines)
	if err != nil {
		return err
	}
	cc.diff[backend] = d
	return nil
}

// spill writes an answer's sorted rows to a file of the run's own.
func (x *Scale) spill(lines []string) (string, error) {
	if x.dir == "" {
		d, err := os.MkdirTemp(x.parent, ".cross-backend-"+x.scale+"-")
		if err != nil {
			return "", fmt.Errorf("cross-backend answers: %w", err)
		}
		x.dir = d
	}
	x.nfiles++
	path := filepath.Join(x.dir, strconv.Itoa(x.nfiles)+".txt")
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if err := redact.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("cross-backend answers: %w", err)
	}
	return path, nil
}

// firstDifference puts the first differing row of ref and got (sorted)
// side by side.
func firstDifference(ref, got *answer, lines []string) (string, error) {
	both := fmt.Sprintf("%s %d rows, %s %d rows", ref.backend, ref.n, got.backend, got.n)
	if ref.columns != got.columns {
		return fmt.Sprintf("%s; columns differ: %s (%s) | %s (%s)", both, ref.backend, ref.columns, got.backend, got.columns), nil
	}
	next, done, err := ref.rows()
	if err != nil {
		return "", err
	}
	defer done()
	for i := 0; ; i++ {
		r, rok := next()
		var g string
		gok := i < len(lines)
		if gok {
			g = lines[i]
		}
		if !rok && !gok {
			return both + "; rows agree once sorted", nil // a digest collision: not met in practice
		}
		if !rok {
			r = "none"
		}
		if !gok {
			g = "none"
		}
		if r != g || !rok || !gok {
			return fmt.Sprintf("%s; first differing row (#%d, rows sorted): %s %s | %s %s", both, i+1, ref.backend, r, got.backend, g), nil
		}
	}
}

// rows iterates over the answer's sorted rows, from memory or its file.
func (a *answer) rows() (next func() (string, bool), done func(), err error) {
	if a.file == "" {
		i := 0
		return func() (string, bool) {
			if i >= len(a.head) {
				return "", false
			}
			i++
			return a.head[i-1], true
		}, func() {}, nil
	}
	f, err := os.Open(a.file)
	if err != nil {
		return nil, nil, fmt.Errorf("cross-backend answers: %w", err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	return func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		return sc.Text(), true
	}, func() { f.Close() }, nil
}

// Lines returns the scale's cross-backend check lines: for each check
// answered on two backends or more, PASS when every case agrees, FAIL
// naming the backends and the first differing row otherwise.
func (x *Scale) Lines() []results.CheckLine {
	var out []results.CheckLine
	for _, id := range x.order {
		ck := x.checks[id]
		if len(ck.backends) < 2 {
			continue
		}
		compared, differ := 0, 0
		var first string
		var differing []string
		for _, k := range ck.order {
			cc := ck.cases[k]
			if len(cc.compared) == 0 {
				continue
			}
			compared++
			if len(cc.diff) == 0 {
				continue
			}
			differ++
			for _, b := range cc.compared {
				if d, ok := cc.diff[b]; ok {
					if !slices.Contains(differing, b) {
						differing = append(differing, b)
					}
					if first == "" {
						first = cc.label + d
					}
				}
			}
		}
		if compared == 0 {
			continue
		}
		line := results.CheckLine{Status: results.Pass, Scenario: id.scenario, Backend: strings.Join(ck.backends, "+"), Scale: x.scale,
			Name: id.check + results.CrossBackendSuffix}
		if differ == 0 {
			line.Detail = fmt.Sprintf("%d of %d cases agree across %s", compared, compared, strings.Join(ck.backends, ", "))
		} else {
			line.Status = results.Fail
			line.Detail = fmt.Sprintf("%s differ(s) from %s in %d of %d cases; first: %s", strings.Join(differing, ", "),
				ck.cases[ck.order[0]].ref.backend, differ, compared, first)
		}
		out = append(out, line)
	}
	return out
}

// Close removes the directory the scale's answers were kept in (its
// own, made by spill).
func (x *Scale) Close() {
	if x.dir != "" {
		os.RemoveAll(x.dir)
		x.dir = ""
	}
}

// New collects the answers of one scale; longer answers are spilled into
// a directory of its own under the results directory parent.
func New(scale, parent string) *Scale {
	return &Scale{scale: scale, parent: parent, checks: map[crossID]*crossCheck{}}
}
