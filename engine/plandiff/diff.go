// Package plandiff relates two revisions of a spec through their plans.
// A plan is the resolved program, so comparing two plans compares what
// two revisions would run: Diff lists what was added, removed or changed
// between two plan descriptions (package plandesc), with unified diffs of
// SQL and the estimated duration before and after.
package plandiff

import (
	"encoding/json"
	"fmt"
	"github.com/mentat-spec/mentat-spec/engine/plandesc"
	"sort"
	"strings"

	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/udiff"
)

// Change operations.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// What a change is about.
const (
	WhatMatrix   = "matrix"
	WhatDataset  = "dataset"
	WhatCell     = "cell"
	WhatBackend  = "backend"
	WhatQuery    = "query"
	WhatScenario = "scenario"
)

// Change is one thing added, removed or changed between two plans. The
// same change in several cells (a query changed for every scale of a
// backend) is one Change naming all of them.
type Change struct {
	Op        string         `json:"op"`
	What      string         `json:"what"`
	Name      string         `json:"name"`
	Cells     []string       `json:"cells"` // "scale/backend", or scales for a dataset
	Details   []Detail       `json:"details,omitempty"`
	Estimates []CellEstimate `json:"estimates,omitempty"` // scenarios: the duration before and after, per cell
}

// Detail is one field of a changed thing: either Old and New values or,
// for texts and lists, a unified diff.
type Detail struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
	Diff  string `json:"diff,omitempty"`
}

// CellEstimate is a scenario's estimated duration in one cell before and
// after (zero on the side where it does not exist).
type CellEstimate struct {
	Cell string            `json:"cell"`
	Old  plandesc.Estimate `json:"old"`
	New  plandesc.Estimate `json:"new"`
}

// Diff is the difference between two plans.
type Diff struct {
	Old       string            `json:"old"` // labels of the two sides
	New       string            `json:"new"`
	Changes   []Change          `json:"changes"`
	OldPoints int               `json:"old_points"`
	NewPoints int               `json:"new_points"`
	OldEst    plandesc.Estimate `json:"old_estimate"`
	NewEst    plandesc.Estimate `json:"new_estimate"`
}

// Empty reports whether the two plans are the same.
func (r *Diff) Empty() bool { return len(r.Changes) == 0 }

// Between compares two descriptions. Changes come from the widest (matrix,
// datasets) to the narrowest (queries, scenarios), each kind in the new
// plan's run order and then what only the old one had, so the order is
// deterministic.
func Between(oldLabel, newLabel string, a, b *plandesc.Description) *Diff {
	r := &Diff{Old: oldLabel, New: newLabel, OldPoints: a.Points, NewPoints: b.Points, OldEst: a.Estimate, NewEst: b.Estimate}
	g := &grouper{}
	r.Changes = append(r.Changes, matrixChanges(a, b)...)

	oldDS := map[string]plandesc.DatasetDesc{}
	for _, d := range a.Datasets {
		oldDS[d.Scale] = d
	}
	for _, d := range b.Datasets {
		o, ok := oldDS[d.Scale]
		if !ok || o.Fingerprint == d.Fingerprint {
			continue // a new scale is a matrix change
		}
		dets := []Detail{}
		if o.Summary != d.Summary {
			dets = append(dets, Detail{Field: "size", Old: o.Summary, New: d.Summary})
		}
		dets = append(dets, Detail{Field: "definition", Diff: udiff.Unified("old", "new", lines(o.Lines), lines(d.Lines))})
		g.add(Change{Op: Changed, What: WhatDataset, Name: a.Dataset, Details: dets}, d.Scale, nil)
	}

	oldCells := map[string]*plandesc.CellDesc{}
	for i := range a.Cells {
		oldCells[a.Cells[i].Name()] = &a.Cells[i]
	}
	newCells := map[string]bool{}
	for i := range b.Cells {
		nc := &b.Cells[i]
		newCells[nc.Name()] = true
		oc, ok := oldCells[nc.Name()]
		if !ok {
			g.add(Change{Op: Added, What: WhatCell, Name: nc.Backend.Name,
				Details: []Detail{{Field: "estimate", New: nc.Estimate.String()}}}, nc.Name(), nil)
			continue
		}
		diffCell(g, oc, nc)
	}
	for i := range a.Cells {
		oc := &a.Cells[i]
		if !newCells[oc.Name()] {
			g.add(Change{Op: Removed, What: WhatCell, Name: oc.Backend.Name,
				Details: []Detail{{Field: "estimate", Old: oc.Estimate.String()}}}, oc.Name(), nil)
		}
	}
	r.Changes = append(r.Changes, g.changes...)
	sort.SliceStable(r.Changes, func(i, j int) bool { return whatRank[r.Changes[i].What] < whatRank[r.Changes[j].What] })
	return r
}

// whatRank orders a report from the widest change to the narrowest.
var whatRank = map[string]int{WhatMatrix: 0, WhatDataset: 1, WhatCell: 2, WhatBackend: 3, WhatQuery: 4, WhatScenario: 5}

func matrixChanges(a, b *plandesc.Description) []Change {
	var dets []Detail
	if a.Dataset != b.Dataset {
		dets = append(dets, Detail{Field: "dataset", Old: a.Dataset, New: b.Dataset})
	}
	for _, f := range []struct {
		name string
		o, n []string
	}{{"scales", a.Scales, b.Scales}, {"backends", a.Backends, b.Backends}} {
		if strings.Join(f.o, " ") != strings.Join(f.n, " ") {
			dets = append(dets, Detail{Field: f.name, Old: strings.Join(f.o, ", "), New: strings.Join(f.n, ", ")})
		}
	}
	if len(dets) == 0 {
		return nil
	}
	return []Change{{Op: Changed, What: WhatMatrix, Name: "matrix", Details: dets}}
}

func diffCell(g *grouper, oc, nc *plandesc.CellDesc) {
	cell := nc.Name()
	if dets := backendDetails(oc.Backend, nc.Backend); len(dets) > 0 {
		g.add(Change{Op: Changed, What: WhatBackend, Name: nc.Backend.Name, Details: dets}, cell, nil)
	}
	oq := map[string]plandesc.QueryDesc{}
	for _, q := range oc.Queries {
		oq[q.Name] = q
	}
	nq := map[string]bool{}
	for _, q := range nc.Queries {
		nq[q.Name] = true
		o, ok := oq[q.Name]
		switch {
		case !ok:
			g.add(Change{Op: Added, What: WhatQuery, Name: q.Name, Details: []Detail{
				{Field: "sql (" + q.Dialect + ")", Diff: udiff.Unified("/dev/null", q.Name, "", q.SQL)}}}, cell, nil)
		case o.Fingerprint != q.Fingerprint:
			g.add(Change{Op: Changed, What: WhatQuery, Name: q.Name, Details: queryDetails(o, q)}, cell, nil)
		}
	}
	for _, q := range oc.Queries {
		if !nq[q.Name] {
			g.add(Change{Op: Removed, What: WhatQuery, Name: q.Name}, cell, nil)
		}
	}
	oldSc := map[string]plandesc.ScenarioDesc{}
	for _, s := range oc.Scenarios {
		oldSc[s.Name] = s
	}
	ns := map[string]bool{}
	for _, s := range nc.Scenarios {
		ns[s.Name] = true
		o, ok := oldSc[s.Name]
		switch {
		case !ok:
			g.add(Change{Op: Added, What: WhatScenario, Name: s.Name, Details: []Detail{{Field: "points", Diff: udiff.Unified("old", "new", "", lines(s.Points))}}},
				cell, &CellEstimate{Cell: cell, New: s.Estimate})
		default:
			if dets := scenarioDetails(o, s); len(dets) > 0 {
				g.add(Change{Op: Changed, What: WhatScenario, Name: s.Name, Details: dets}, cell, &CellEstimate{Cell: cell, Old: o.Estimate, New: s.Estimate})
			}
		}
	}
	for _, s := range oc.Scenarios {
		if !ns[s.Name] {
			g.add(Change{Op: Removed, What: WhatScenario, Name: s.Name}, cell, &CellEstimate{Cell: cell, Old: s.Estimate})
		}
	}
}

func queryDetails(o, n plandesc.QueryDesc) []Detail {
	var d []Detail
	if o.Dialect != n.Dialect {
		d = append(d, Detail{Field: "dialect", Old: o.Dialect, New: n.Dialect})
	}
	if o.SQL != n.SQL {
		d = append(d, Detail{Field: "sql (" + n.Dialect + ")", Diff: udiff.Unified(n.Name+" (old)", n.Name+" (new)", o.SQL, n.SQL)})
	}
	d = append(d, mapDetails("params", o.Params, n.Params)...)
	return d
}

// scenarioDetails lists what changed in a scenario; the description is
// listed too although it is not part of the fingerprint.
func scenarioDetails(o, n plandesc.ScenarioDesc) []Detail {
	var d []Detail
	str := func(field, a, b string) {
		if a != b {
			d = append(d, Detail{Field: field, Old: a, New: b})
		}
	}
	list := func(field string, a, b []string) {
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			d = append(d, Detail{Field: field, Diff: udiff.Unified("old", "new", lines(a), lines(b))})
		}
	}
	str("kind", o.Kind, n.Kind)
	str("description", o.Description, n.Description)
	str("sampling", o.Sampling, n.Sampling)
	list("points", o.Points, n.Points)
	str("queries", strings.Join(o.Queries, ", "), strings.Join(n.Queries, ", "))
	str("writes", fmt.Sprint(o.Writes), fmt.Sprint(n.Writes))
	list("checks", o.Checks, n.Checks)
	return d
}

func backendDetails(o, n plandesc.BackendDesc) []Detail {
	var d []Detail
	str := func(field, a, b string) {
		if a != b {
			d = append(d, Detail{Field: field, Old: a, New: b})
		}
	}
	sqls := func(field string, a, b []string) {
		if strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			d = append(d, Detail{Field: field, Diff: udiff.Unified("old", "new", strings.Join(a, "\n;;\n"), strings.Join(b, "\n;;\n"))})
		}
	}
	str("driver", o.Driver, n.Driver)
	str("dialect", o.Dialect, n.Dialect)
	d = append(d, mapDetails("options", o.Options, n.Options)...)
	d = append(d, mapDetails("settings", o.Settings, n.Settings)...)
	sqls("setup", o.Setup, n.Setup)
	sqls("after_load", o.AfterLoad, n.AfterLoad)
	sqls("analyze", o.Analyze, n.Analyze)
	sqls("vacuum", o.Vacuum, n.Vacuum)
	str("restart", strings.Join(o.Restart, " "), strings.Join(n.Restart, " "))
	str("drop_caches", strings.Join(o.DropCaches, " "), strings.Join(n.DropCaches, " "))
	str("load", o.Load, n.Load)
	str("extensions", extensionsText(o.Extensions), extensionsText(n.Extensions))
	str("allow_unsigned_extensions", fmt.Sprint(o.AllowUnsignedExtensions), fmt.Sprint(n.AllowUnsignedExtensions))
	sqls("session_setup", o.SessionSetup, n.SessionSetup)
	str("explain", o.Explain, n.Explain)
	return d
}

// extensionsText is a backend's extensions on one line, as plan shows them.
func extensionsText(exts []drivers.Extension) string {
	parts := make([]string, len(exts))
	for i, e := range exts {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func mapDetails(field string, a, b map[string]string) []Detail {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var d []Detail
	for _, k := range sorted {
		o, inA := a[k]
		n, inB := b[k]
		if inA && inB && o == n {
			continue
		}
		det := Detail{Field: field + "." + k, Old: o, New: n}
		if !inA {
			det.Old = "(unset)"
		}
		if !inB {
			det.New = "(unset)"
		}
		d = append(d, det)
	}
	return d
}

func lines(l []string) string { return strings.Join(l, "\n") }

// grouper merges identical changes made in several cells.
type grouper struct {
	changes []Change
	index   map[string]int
}

func (g *grouper) add(c Change, cell string, est *CellEstimate) {
	if g.index == nil {
		g.index = map[string]int{}
	}
	key, _ := json.Marshal(c)
	i, ok := g.index[string(key)]
	if !ok {
		i = len(g.changes)
		g.index[string(key)] = i
		g.changes = append(g.changes, c)
	}
	g.changes[i].Cells = append(g.changes[i].Cells, cell)
	if est != nil {
		g.changes[i].Estimates = append(g.changes[i].Estimates, *est)
	}
}
