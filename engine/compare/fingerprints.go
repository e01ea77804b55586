package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

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

// Unchanged compares the fingerprints of two loaded runs. The error wraps
// results.ErrNoFingerprints when either run has none.
func Unchanged(oldRun, newRun *results.Run) (*Comparability, error) {
	for _, r := range []*results.Run{oldRun, newRun} {
		if r.Fingerprints == nil {
			return nil, fmt.Errorf("%s: %w", r.Dir, results.ErrNoFingerprints)
		}
	}
	a, b := oldRun.Fingerprints, newRun.Fingerprints
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
