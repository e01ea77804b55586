// Package plan expands a spec into the matrix it will run: each (scale,
// backend) cell with its dataset size, then each scenario at each client
// count with the sampling that applies. Building a plan touches no
// database.
package plan

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/zclconf/go-cty/cty"
)

// Plan is the expanded matrix in run order.
type Plan struct {
	Spec    *config.Spec
	Dataset string
	Scales  []*ScalePlan
}

// ScalePlan is one scale: its generated dataset and the backends it runs on.
type ScalePlan struct {
	Scale    *config.Scale
	Gen      *datagen.Dataset
	Stats    datagen.Stats
	Marks    map[string]int64
	Backends []*CellPlan
}

// CellPlan is one (scale, backend) cell.
type CellPlan struct {
	Cell      config.Cell
	Backend   *config.BackendConfig
	Scenarios []*ScenarioPlan
}

// ScenarioPlan is one scenario in one cell.
type ScenarioPlan struct {
	Scenario *config.Scenario
	Points   []Point
}

// Point is one measured point: a client count for the scenario's streams.
type Point struct {
	Clients int
	Streams []StreamPoint
}

// StreamPoint is one stream at a point.
type StreamPoint struct {
	Op      string
	Clients int
	Mix     []string
}

// Build expands spec. workers bounds the parallelism of dataset counting.
func Build(ctx context.Context, spec *config.Spec, workers int) (*Plan, hcl.Diagnostics) {
	p := &Plan{Spec: spec, Dataset: spec.Matrix.DatasetName}
	ds := spec.SelectedDataset()
	if ds == nil {
		return p, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No dataset", Detail: "The spec declares no dataset to run."}}
	}
	var diags hcl.Diagnostics
	for _, sn := range spec.Matrix.ScaleNames {
		sc := spec.Scale(sn)
		gen, d := ds.Resolve(spec.ScaleContext(sc))
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		stats, err := gen.Stats(ctx, workers)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot size the dataset",
				Detail: fmt.Sprintf("scale %q: %s", sn, err)})
			continue
		}
		sp := &ScalePlan{Scale: sc, Gen: gen, Stats: stats, Marks: gen.MarkTxs()}
		for _, bn := range spec.Matrix.BackendNames {
			be := spec.Backend(bn)
			cell := config.Cell{Scale: sc, Backend: be}
			bc, d := be.Resolve(spec.CellContext(cell, cty.NilVal))
			diags = append(diags, d...)
			cp := &CellPlan{Cell: cell, Backend: bc}
			for _, scen := range spec.SelectedScenarios() {
				if !scen.RunsOn(bn) {
					continue
				}
				spl := &ScenarioPlan{Scenario: scen}
				for _, n := range scen.Clients {
					pt := Point{Clients: n}
					for _, st := range scen.Streams {
						c := n
						if st.FixedClients > 0 {
							c = st.FixedClients
						}
						pt.Streams = append(pt.Streams, StreamPoint{Op: st.Op, Clients: c, Mix: st.MixNames})
					}
					spl.Points = append(spl.Points, pt)
				}
				cp.Scenarios = append(cp.Scenarios, spl)
			}
			sp.Backends = append(sp.Backends, cp)
		}
		p.Scales = append(p.Scales, sp)
	}
	return p, diags
}

// Render writes the plan as text. The output is deterministic.
func (p *Plan) Render(w io.Writer) error {
	var b strings.Builder
	spec := p.Spec
	fmt.Fprintf(&b, "Plan: dataset %q; scales %s; backends %s; %d scenarios\n", p.Dataset,
		strings.Join(spec.Matrix.ScaleNames, ", "), strings.Join(spec.Matrix.BackendNames, ", "), len(spec.Matrix.ScenarioNames))
	fmt.Fprintf(&b, "Sampling: %s\n", samplingText(spec.Sampling.Values))
	for _, sp := range p.Scales {
		st := sp.Stats
		fmt.Fprintf(&b, "\nscale %s: %s entities (%s), %s datoms (initial %s%s), %s transactions\n",
			sp.Scale.Name, Thousands(sum(st.Entities)), countsText(sp.Gen, st.Entities),
			Thousands(st.Datoms), Thousands(st.InitialDatoms), historyText(sp.Gen, st.HistoryDatoms), Thousands(st.Txs))
		if len(sp.Marks) > 0 {
			names := make([]string, 0, len(sp.Marks))
			for n := range sp.Marks {
				names = append(names, n)
			}
			sort.Strings(names)
			var parts []string
			for _, n := range names {
				parts = append(parts, fmt.Sprintf("%s = %d", n, sp.Marks[n]))
			}
			fmt.Fprintf(&b, "  marks: %s\n", strings.Join(parts, ", "))
		}
		for _, cp := range sp.Backends {
			bc := cp.Backend
			fmt.Fprintf(&b, "  backend %s (driver %s)\n", cp.Cell.Backend.Name, cp.Cell.Backend.Driver)
			if bc.Load.Declared {
				fmt.Fprintf(&b, "    load: %s, %d job(s), %s rows per transaction; after load: %d SQL text(s)\n",
					tablesText(bc.Load.Tables), bc.Load.Jobs, Thousands(int64(bc.Load.BatchRows)), len(bc.AfterLoad))
			} else {
				fmt.Fprintf(&b, "    load: none declared (the store must already hold the dataset)\n")
			}
			if len(bc.Settings) > 0 {
				fmt.Fprintf(&b, "    settings: %s\n", mapText(bc.Settings))
			}
			for i, sc := range cp.Scenarios {
				fmt.Fprintf(&b, "    %d. %s\n", i+1, sc.Scenario.Name)
				if sc.Scenario.Sampling != spec.Sampling.Values {
					fmt.Fprintf(&b, "       sampling: %s\n", samplingText(sc.Scenario.Sampling))
				}
				for _, pt := range sc.Points {
					var streams []string
					for _, s := range pt.Streams {
						streams = append(streams, fmt.Sprintf("%s %s x%d", s.Op, strings.Join(s.Mix, "+"), s.Clients))
					}
					fmt.Fprintf(&b, "       clients %-4d %s\n", pt.Clients, strings.Join(streams, "; "))
				}
				for _, ck := range sc.Scenario.Checks {
					fmt.Fprintf(&b, "       check %s: query %s\n", ck.Name, ck.Query)
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func samplingText(s config.SamplingValues) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return fmt.Sprintf("warmup %d, min_s %s, min_n %d, max_s %s, reps %d, probe_s %s, check_s %s, load_max_s %s",
		s.Warmup, f(s.MinS), s.MinN, f(s.MaxS), s.Reps, f(s.ProbeS), f(s.CheckS), f(s.LoadMax))
}

func sum(m map[string]int64) int64 {
	var t int64
	for _, v := range m {
		t += v
	}
	return t
}

func countsText(gen *datagen.Dataset, m map[string]int64) string {
	var parts []string
	for _, e := range gen.Entities {
		parts = append(parts, fmt.Sprintf("%s %s", e.Name, Thousands(m[e.Name])))
	}
	return strings.Join(parts, ", ")
}

func historyText(gen *datagen.Dataset, m map[string]int64) string {
	var b strings.Builder
	for _, h := range gen.History {
		fmt.Fprintf(&b, "; %s %s", h.Name, Thousands(m[h.Name]))
	}
	return b.String()
}

func tablesText(m map[string]string) string {
	var parts []string
	for _, k := range config.LoadTableKeys {
		parts = append(parts, fmt.Sprintf("%s->%s", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func mapText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, " ")
}

// Thousands formats n with comma separators.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
