package main

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/drivers"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/planbuild"
)

// planFormatVersion is the version of plan -json's format
// (docs/plan-json.md); validate -json stays at 1.0.
const planFormatVersion = "2.1"

// PlanJSON is the output of plan -json: validate -json's fields, then
// the plan's cells in run order and its total. Cells is empty, never
// absent, when the plan could not be built.
type PlanJSON struct {
	JSONResult
	EstimateFrom string         `json:"estimate_from,omitempty"`
	Cells        []PlanJSONCell `json:"cells"`
	Estimate     *JSONEstimate  `json:"estimate,omitempty"`
	StoreBytes   int64          `json:"store_bytes,omitempty"`
}

// PlanJSONCell is one (scale, backend) cell.
type PlanJSONCell struct {
	Scale        string          `json:"scale"`
	Backend      string          `json:"backend"`
	Driver       string          `json:"driver"`
	Datoms       int64           `json:"datoms"`
	LoadEstimate *JSONEstimate   `json:"load_estimate"` // null: the backend declares no load
	LoadFrom     string          `json:"load_from,omitempty"`
	StoreBytes   int64           `json:"store_bytes,omitempty"`
	StoreFrom    string          `json:"store_from,omitempty"`
	Estimate     JSONEstimate    `json:"estimate"`
	Points       []PlanJSONPoint `json:"points"`
}

// PlanJSONPoint is one point of a scenario, or a scenario that is off in
// the cell (off true, with off_reason, and no estimate).
type PlanJSONPoint struct {
	Scenario    string   `json:"scenario"`
	Kind        string   `json:"kind"`
	Describe    string   `json:"describe,omitempty"`
	EstimateLoS *float64 `json:"estimate_lo_s,omitempty"`
	EstimateHiS *float64 `json:"estimate_hi_s,omitempty"`
	EstimateS   *float64 `json:"estimate_s,omitempty"` // the best estimate
	Off         bool     `json:"off"`
	OffReason   string   `json:"off_reason,omitempty"`
}

// JSONEstimate is a duration estimate in seconds.
type JSONEstimate struct {
	LoS   float64 `json:"lo_s"`
	HiS   float64 `json:"hi_s"`
	BestS float64 `json:"best_s"`
}

func jsonEstimate(e plan.Estimate) JSONEstimate {
	return JSONEstimate{LoS: e.Lo.Seconds(), HiS: e.Hi.Seconds(), BestS: e.Best.Seconds()}
}

// planCells is the plan as PlanJSON's cells.
func planCells(p *plan.Plan) []PlanJSONCell {
	cells := []PlanJSONCell{}
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			jc := PlanJSONCell{Scale: sp.Name, Backend: c.Backend.Name, Driver: c.Backend.Driver, Datoms: sp.Stats.Datoms,
				Estimate: jsonEstimate(c.Estimate()), Points: []PlanJSONPoint{}}
			if c.Backend.Load.Declared {
				le := jsonEstimate(c.LoadEstimate())
				jc.LoadEstimate = &le
				jc.LoadFrom = c.LoadFrom()
				jc.StoreBytes, jc.StoreFrom = c.StoreEstimate()
			}
			for _, s := range c.Scenarios {
				if len(s.Points) == 0 {
					jc.Points = append(jc.Points, PlanJSONPoint{Scenario: s.Name, Kind: s.Kind, Off: true, OffReason: "no points as configured"})
				}
				for i, pt := range s.Points {
					e := s.PointEstimate(i)
					lo, hi, best := e.Lo.Seconds(), e.Hi.Seconds(), e.Best.Seconds()
					jc.Points = append(jc.Points, PlanJSONPoint{Scenario: s.Name, Kind: s.Kind, Describe: pt.Describe(),
						EstimateLoS: &lo, EstimateHiS: &hi, EstimateS: &best})
				}
			}
			for _, o := range c.Off {
				jc.Points = append(jc.Points, PlanJSONPoint{Scenario: o.Name, Kind: o.Kind, Off: true, OffReason: o.Reason})
			}
			cells = append(cells, jc)
		}
	}
	return cells
}

// planJSON is plan -json: diagnostics of loading and of expanding the
// matrix, and the plan as data when it could be built.
func planJSON(paths []string, sf *specFlags, estimateFrom string, stdout, stderr io.Writer) int {
	spec, diags := checkSpec(paths, sf)
	out := PlanJSON{Cells: []PlanJSONCell{}, EstimateFrom: estimateFrom}
	if !diags.HasErrors() {
		ctx, cancel := signalContext()
		defer cancel()
		p, pdiags := planbuild.Build(ctx, spec, plan.Drivers(drivers.Default), workers())
		diags = append(diags, pdiags...)
		if !pdiags.HasErrors() {
			diags = append(diags, unconfiguredWarnings(spec, p)...)
			if estimateFrom != "" {
				if err := estimateFromRun(p, estimateFrom, io.Discard); err != nil {
					fmt.Fprintf(stderr, "mentat-spec plan: %v\n", err)
					return exitUsage
				}
			}
			out.Cells = planCells(p)
			e := jsonEstimate(p.Estimate())
			out.Estimate = &e
			out.StoreBytes = p.StoreBytes()
		}
	}
	out.JSONResult = jsonResult(spec, diags)
	out.FormatVersion = planFormatVersion
	if err := writeJSON(stdout, out); err != nil {
		fmt.Fprintf(stderr, "mentat-spec plan: %v\n", err)
		return exitUnfinished
	}
	if !out.Valid {
		return exitUsage
	}
	return exitOK
}

// estimateFromRun makes p's estimates those the results directory dir
// measured, and says on w how many scenarios and loads matched.
func estimateFromRun(p *plan.Plan, dir string, w io.Writer) error {
	h, err := plan.ReadHistory(dir)
	if err != nil {
		return err
	}
	scenarios, loads, extrapolated := p.EstimateFrom(h)
	if scenarios == 0 && loads == 0 && extrapolated == 0 {
		return fmt.Errorf("-estimate-from %s: no scenario or load of this plan ran there (matched by scenario, backend and scale), and none of its backends loaded there", dir)
	}
	fmt.Fprintf(w, "Estimates from %s: %d scenario(s) and %d load(s) of this plan measured there", dir, scenarios, loads)
	if extrapolated > 0 {
		fmt.Fprintf(w, "; %d load(s) and store(s) per datom from another scale there", extrapolated)
	}
	fmt.Fprintln(w, ".")
	return nil
}

// unconfiguredBackend is a selected backend its driver says cannot be
// opened as configured, and why (with the fix).
type unconfiguredBackend struct {
	backend string
	err     error
}

// unconfiguredBackends lists them once each, in run order.
func unconfiguredBackends(p *plan.Plan) []unconfiguredBackend {
	var out []unconfiguredBackend
	seen := map[string]bool{}
	for _, sp := range p.Scales {
		for _, c := range sp.Cells {
			b := c.Backend
			drv, ok := drivers.Default.Lookup(b.Driver)
			cv, can := drv.(drivers.ConfigValidator)
			if seen[b.Name] || !ok || !can {
				continue
			}
			seen[b.Name] = true
			if err := cv.ValidateConfig(drivers.Config{Backend: b.Name, Scale: sp.Name, Options: b.Options, Settings: b.Settings, Extensions: b.Extensions}); err != nil {
				out = append(out, unconfiguredBackend{b.Name, err})
			}
		}
	}
	return out
}

// unconfiguredWarnings warns, at the backend block, of each
// unconfiguredBackend: plan stays usable without the server (a
// PostgreSQL backend without a DSN), and apply refuses such a backend.
func unconfiguredWarnings(spec *config.Spec, p *plan.Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, u := range unconfiguredBackends(p) {
		d := &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Backend cannot be configured",
			Detail: fmt.Sprintf("backend %q: %v. apply refuses it until then.", u.backend, u.err)}
		if be := spec.Backend(u.backend); be != nil {
			d.Subject = be.DeclRange.Ptr()
		}
		diags = append(diags, d)
	}
	return diags
}
