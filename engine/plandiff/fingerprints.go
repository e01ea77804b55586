package plandiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/results"
)

// FingerprintsFile is the results directory's record of what each cell's
// rows were measured with.
const FingerprintsFile = "fingerprints.json"

// ErrNoFingerprints is returned (wrapped) by Unchanged when a results
// directory predates fingerprints; compare then falls back to the whole
// spec's hash.
var ErrNoFingerprints = errors.New("no " + FingerprintsFile)

// Fingerprints are the definitions a results directory was measured
// with, per cell ("scale/backend").
type Fingerprints struct {
	Version int                        `json:"version"`
	Cells   map[string]CellFingerprint `json:"cells"`
}

// CellFingerprint holds one cell's fingerprints. Backend is recorded but
// does not make rows incomparable: a backend's settings, setup and
// indexes are what a comparison of two runs usually measures.
type CellFingerprint struct {
	Scale     string                         `json:"scale"`
	Backend   string                         `json:"backend"`
	Dataset   string                         `json:"dataset"`
	BackendFP string                         `json:"backend_definition"`
	Queries   map[string]string              `json:"queries"`
	Scenarios map[string]ScenarioFingerprint `json:"scenarios"`
}

// ScenarioFingerprint is a scenario's own fingerprint and the queries
// its points run (whose fingerprints decide too).
type ScenarioFingerprint struct {
	Definition string   `json:"definition"`
	Queries    []string `json:"queries"`
}

// FingerprintsOf collects the fingerprints of a description.
func FingerprintsOf(d *Description) *Fingerprints {
	f := &Fingerprints{Version: 1, Cells: map[string]CellFingerprint{}}
	ds := map[string]string{}
	for _, x := range d.Datasets {
		ds[x.Scale] = x.Fingerprint
	}
	for _, c := range d.Cells {
		cf := CellFingerprint{Scale: c.Scale, Backend: c.Backend.Name, Dataset: ds[c.Scale], BackendFP: c.Backend.Fingerprint,
			Queries: map[string]string{}, Scenarios: map[string]ScenarioFingerprint{}}
		for _, q := range c.Queries {
			cf.Queries[q.Name] = q.Fingerprint
		}
		for _, s := range c.Scenarios {
			cf.Scenarios[s.Name] = ScenarioFingerprint{Definition: s.Fingerprint, Queries: s.Queries}
		}
		f.Cells[c.Name()] = cf
	}
	return f
}

// WriteFingerprints records the plan's fingerprints in the results
// directory dir. Cells an earlier invocation recorded there and this
// plan does not run are kept, so a directory filled by several runs
// describes all its rows; the plan's own cells are replaced.
func WriteFingerprints(dir string, p *plan.Plan) error {
	f := FingerprintsOf(Describe(p))
	if old, err := ReadFingerprints(dir); err == nil {
		for k, c := range old.Cells {
			if _, ok := f.Cells[k]; !ok {
				f.Cells[k] = c
			}
		}
	} else if !errors.Is(err, ErrNoFingerprints) {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", FingerprintsFile, err)
	}
	path := filepath.Join(dir, FingerprintsFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", FingerprintsFile, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", FingerprintsFile, err)
	}
	return nil
}

// ReadFingerprints reads dir's fingerprints.json.
func ReadFingerprints(dir string) (*Fingerprints, error) {
	b, err := os.ReadFile(filepath.Join(dir, FingerprintsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoFingerprints)
	}
	if err != nil {
		return nil, err
	}
	var f Fingerprints
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FingerprintsFile), err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", filepath.Join(dir, FingerprintsFile), f.Version)
	}
	return &f, nil
}

// ScenarioCell names a scenario in a cell: the part of a results.Key
// that a definition decides.
type ScenarioCell struct{ Scenario, Backend, Scale string }

func (s ScenarioCell) String() string { return s.Scenario + " " + s.Backend + " " + s.Scale }

// NotCompared is a scenario in a cell whose definition changed between
// two runs, with what changed.
type NotCompared struct {
	ScenarioCell
	Reasons []string // "dataset", "scenario", "query q1"
}

func (n NotCompared) String() string {
	return n.ScenarioCell.String() + ": changed definition (" + strings.Join(n.Reasons, ", ") + "), not compared"
}

// Comparability says which rows of two runs measured the same
// definitions.
type Comparability struct {
	// NotCompared lists the scenarios (per cell present in both runs)
	// whose dataset, definition or queries changed, in a stable order.
	NotCompared []NotCompared
	// BackendChanged lists cells whose backend definition changed; their
	// rows stay comparable.
	BackendChanged []string
	// DatasetChanged lists cells whose dataset changed: their loads are
	// not comparable either.
	DatasetChanged []string
	changed        map[ScenarioCell]bool
	dataset        map[string]bool // cell -> dataset changed
}

// Comparable reports whether the row at k may be compared: false only
// when its scenario's definition is known to have changed. Rows of a
// scenario one run lacks are comparable here; compare reports them as
// missing or new.
func (c *Comparability) Comparable(k results.Key) bool {
	return !c.changed[ScenarioCell{Scenario: k.Scenario, Backend: k.Backend, Scale: k.Scale}]
}

// LoadComparable reports whether the bulk loads of a cell (loads.csv)
// may be compared: false when its dataset changed.
func (c *Comparability) LoadComparable(backend, scale string) bool {
	return !c.dataset[scale+"/"+backend]
}

// Unchanged compares the fingerprints of two results directories. The
// error wraps ErrNoFingerprints when either directory has none.
func Unchanged(oldDir, newDir string) (*Comparability, error) {
	a, err := ReadFingerprints(oldDir)
	if err != nil {
		return nil, err
	}
	b, err := ReadFingerprints(newDir)
	if err != nil {
		return nil, err
	}
	c := &Comparability{changed: map[ScenarioCell]bool{}, dataset: map[string]bool{}}
	cells := make([]string, 0, len(b.Cells))
	for k := range b.Cells {
		cells = append(cells, k)
	}
	sort.Strings(cells)
	for _, k := range cells {
		nc := b.Cells[k]
		oc, ok := a.Cells[k]
		if !ok {
			continue
		}
		if oc.BackendFP != nc.BackendFP {
			c.BackendChanged = append(c.BackendChanged, k)
		}
		if oc.Dataset != nc.Dataset {
			c.DatasetChanged = append(c.DatasetChanged, k)
			c.dataset[k] = true
		}
		names := make([]string, 0, len(nc.Scenarios))
		for n := range nc.Scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ns := nc.Scenarios[n]
			os, ok := oc.Scenarios[n]
			if !ok {
				continue
			}
			var why []string
			if oc.Dataset != nc.Dataset {
				why = append(why, "dataset")
			}
			if os.Definition != ns.Definition {
				why = append(why, "scenario")
			}
			for _, q := range union(os.Queries, ns.Queries) {
				if oc.Queries[q] != nc.Queries[q] {
					why = append(why, "query "+q)
				}
			}
			if len(why) > 0 {
				sc := ScenarioCell{Scenario: n, Backend: nc.Backend, Scale: nc.Scale}
				c.changed[sc] = true
				c.NotCompared = append(c.NotCompared, NotCompared{ScenarioCell: sc, Reasons: why})
			}
		}
	}
	return c, nil
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]string{a, b} {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}
