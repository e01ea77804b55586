package resolve

import (
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
	"github.com/mentat-spec/mentat-spec/engine/params"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/sqltext"
	"github.com/zclconf/go-cty/cty"
)

// Driver is what a spec needs to know of a database driver before
// anything is opened (plan.Driver).
type Driver = plan.Driver

// Drivers finds drivers by name; Names lists them for diagnostics.
type Drivers = plan.DriverSet

// Dialect returns the SQL dialect of a backend's driver, or its driver
// name when the driver is unknown (validation reports that).
func Dialect(drv Drivers, b *config.BackendBlock) string {
	if drv != nil {
		if d, ok := drv.Driver(b.Driver); ok {
			return d.Dialect()
		}
	}
	return b.Driver
}

// validateDrivers checks that every backend's driver exists and knows
// every option the backend sets.
func validateDrivers(s *config.Spec, drv Drivers) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range s.Backends {
		d, ok := drv.Driver(b.Driver)
		if !ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown driver",
				Detail:  fmt.Sprintf("Backend %q uses driver %q; the drivers are %v.", b.Name, b.Driver, drv.Names()),
				Subject: b.DriverRng.Ptr()})
			continue
		}
		known := map[string]bool{}
		for _, n := range d.OptionNames() {
			known[n] = true
		}
		for n, a := range b.Options {
			if !known[n] {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument",
					Detail:  fmt.Sprintf("Backend %q: driver %q has no option %q; its options are %v.", b.Name, b.Driver, n, d.OptionNames()),
					Subject: a.NameRange.Ptr()})
			}
		}
	}
	return diags
}

// Validate resolves everything that depends on a matrix cell, for every
// declared scale and backend (not only the selected ones), so a mistake
// anywhere is reported before anything runs. It touches no database.
func Validate(s *config.Spec, drv Drivers) hcl.Diagnostics {
	diags := validateDrivers(s, drv)
	diags = append(diags, pairedAlone(s)...)
	_, d := Thresholds(s)
	diags = append(diags, d...)
	_, d = Samplers(s)
	diags = append(diags, d...)
	if len(s.Scales) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No scale", Detail: `A spec declares at least one scale "name" {} block.`, Subject: start(s)})
	}
	if len(s.Datasets) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No dataset", Detail: `A spec declares a dataset "name" {} block.`, Subject: start(s)})
	}
	ds := s.SelectedDataset()
	if ds == nil || diags.HasErrors() {
		return diags
	}
	seen := map[string]bool{}
	report := func(d hcl.Diagnostics) {
		// The same mistake shows in every cell: report it once.
		for _, x := range d {
			key := x.Summary + x.Detail
			if x.Subject != nil {
				key += x.Subject.String()
			}
			if !seen[key] {
				seen[key] = true
				diags = append(diags, x)
			}
		}
	}
	for _, sc := range s.Scales {
		gen, d := Dataset(ds, s.ScaleContext(sc))
		report(d)
		if d.HasErrors() {
			continue
		}
		w, d := Writes(ds, s.ScaleContext(sc), gen)
		report(d)
		writesOK := !d.HasErrors() // else the generators are reported at their blocks, not again at each use
		truth := placeholderTruth(gen)
		for _, b := range s.Backends {
			report(validateCell(s, config.Cell{Scale: sc, Backend: b}, drv, gen, w, writesOK, truth))
		}
	}
	return diags
}

// placeholderTruth is truth.* with every answer unknown, for validation.
func placeholderTruth(gen *datagen.Dataset) cty.Value {
	m, ids := map[string]cty.Value{}, map[string]cty.Value{}
	for _, t := range gen.Truth {
		m[t.Name] = cty.DynamicVal
		if t.Kind == datagen.TruthCount || t.Kind == datagen.TruthCountBy || t.Kind == datagen.TruthChangedSince {
			ids[t.Name] = cty.DynamicVal // truth.ids.<name>: the id set of a counting truth
		}
	}
	m[datagen.IDsKey] = cty.ObjectVal(ids)
	return cty.ObjectVal(m)
}

// validateCell checks one cell: its backend, every query's text and
// parameters, and every check of the scenarios that run on the backend.
func validateCell(s *config.Spec, c config.Cell, drv Drivers, gen *datagen.Dataset, w *writes.Writes, writesOK bool, truth cty.Value) hcl.Diagnostics {
	ctx := s.CellContext(c, truth)
	dialect := Dialect(drv, c.Backend)
	bc, diags := Backend(c.Backend, ctx, dialect)
	if bc != nil {
		diags = append(diags, CheckSkips(s, c.Backend, bc)...)
		for _, sc := range s.SelectedScenarios() { // as plan: a scenario not selected does not run
			if sc.RunsOn(c.Backend.Name) && !slices.Contains(bc.SkipScenarios, sc.Name) {
				diags = append(diags, ReadersSeeWrites(drv, bc.Driver, bc.Name, bc.Options, sc)...)
			}
		}
	}
	queries := map[string]*CellQuery{}
	if bc != nil {
		dialect = bc.Dialect // a backend's dialect option
	}
	for _, q := range s.Queries {
		rq, d := Query(q, ctx, dialect)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		queries[q.Name] = rq
		for name, v := range rq.Params {
			diags = append(diags, validateParam(gen, q.Params, q.Name, name, v)...)
		}
	}
	selected := map[string]bool{}
	for _, sc := range s.SelectedScenarios() {
		if sc != nil {
			selected[sc.Name] = true
		}
	}
	for _, sc := range s.Scenarios {
		if !sc.RunsOn(c.Backend.Name) {
			continue
		}
		diags = append(diags, DuringChecks(sc)...)
		// As plan: the writes a scenario not selected would run are not
		// resolved against this dataset, so validate refuses no more
		// than plan does.
		if sc.Def != nil && writesOK && selected[sc.Name] {
			diags = append(diags, WriteGenerators(w, sc)...)
			diags = append(diags, TxReads(w, sc)...)
			diags = append(diags, writeOpParams(s, sc, w, gen, queries)...)
			diags = append(diags, boundQueryParams(s, sc, queries)...)
		}
		for _, qn := range sc.Queries() {
			rq, ok := queries[qn]
			if !ok {
				if s.Query(qn) == nil {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown query",
						Detail: fmt.Sprintf("Scenario %q runs query %q, which is not declared.", sc.Name, qn), Subject: sc.DeclRange.Ptr()})
				}
				continue
			}
			for _, pn := range sqltext.Params(rq.SQL) {
				if _, ok := rq.Params[pn]; !ok {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing query parameter",
						Detail:  fmt.Sprintf("Query %q uses :%s, but its params do not set %q (scenario %q runs it).", qn, pn, pn, sc.Name),
						Subject: paramsSubject(s.Query(qn).Params, s.Query(qn).DeclRange)})
				}
			}
		}
		for _, ck := range sc.Checks {
			cases, d := CheckCases(ck, ctx)
			diags = append(diags, d...)
			rq, ok := queries[ck.Query]
			if !ok || d.HasErrors() {
				continue
			}
			for _, cc := range cases {
				for _, pn := range sqltext.Params(rq.SQL) {
					_, inCheck := cc.Params[pn]
					_, inQuery := rq.Params[pn]
					if !inCheck && !inQuery {
						diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing query parameter",
							Detail:  fmt.Sprintf("Check %q runs query %q, which uses :%s; set it in the check's params.", ck.Name, ck.Query, pn),
							Subject: paramsSubject(attrExpr(ck.Attrs, "params"), ck.DeclRange)})
					}
				}
				for name, v := range cc.Params {
					if pg, ok := hclfunc.AsParamGen(v); ok {
						diags = append(diags, checkParamGen(gen, pg, ck.Attrs["params"].Expr.Range(), fmt.Sprintf("check %q param %q", ck.Name, name))...)
					}
				}
			}
		}
	}
	return diags
}

// paramsSubject is where a missing parameter belongs: the params
// attribute when there is one, else the block's header.
func paramsSubject(params hcl.Expression, block hcl.Range) *hcl.Range {
	if params != nil {
		return params.Range().Ptr()
	}
	return block.Ptr()
}

func validateParam(gen *datagen.Dataset, expr hcl.Expression, query, name string, v cty.Value) hcl.Diagnostics {
	what := fmt.Sprintf("query %q param %q", query, name)
	if pg, ok := hclfunc.AsParamGen(v); ok {
		return checkParamGen(gen, pg, expr.Range(), what)
	}
	if _, ok := hclfunc.AsGenerator(v); ok {
		if _, err := ParamSpec(v); err != nil {
			return hcl.Diagnostics{hcleval.AttrError(expr, "Invalid query parameter", fmt.Sprintf("%s: %s.", what, err))}
		}
		return nil
	}
	if !v.IsWhollyKnown() {
		return nil
	}
	if _, err := ParamConst(v); err != nil {
		return hcl.Diagnostics{hcleval.AttrError(expr, "Invalid query parameter", fmt.Sprintf("%s: %s.", what, err))}
	}
	return nil
}

func checkParamGen(gen *datagen.Dataset, pg params.Spec, rng hcl.Range, what string) hcl.Diagnostics {
	fail := func(msg string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid query parameter",
			Detail: fmt.Sprintf("%s: %s.", what, msg), Subject: rng.Ptr()}}
	}
	switch pg.Kind {
	case params.Mark:
		if _, ok := gen.MarkTx(pg.Mark); !ok {
			names := make([]string, 0)
			for n := range gen.MarkTxs() {
				names = append(names, n)
			}
			sort.Strings(names)
			return fail(fmt.Sprintf("mark(%q): the dataset's marks are %v", pg.Mark, names))
		}
	case params.Pick, params.Picks:
		if _, ok := gen.Entity(pg.Entity); !ok {
			return fail(fmt.Sprintf("entity %q is not declared", pg.Entity))
		}
		if pg.Attr != "" {
			if _, err := gen.ValueFunc(pg.Entity, pg.Attr); err != nil {
				return fail(err.Error())
			}
		}
		if pg.Kind == params.Picks && int64(pg.N) > gen.Count(pg.Entity) {
			return fail(fmt.Sprintf("picks %d distinct %s entities, but there are only %d", pg.N, pg.Entity, gen.Count(pg.Entity)))
		}
		if pg.Chooser != nil {
			if _, err := gen.KeyChooser(*pg.Chooser); err != nil {
				return fail(err.Error())
			}
		}
	}
	return nil
}

// start is the beginning of the spec's first file, where a diagnostic
// about something the spec lacks as a whole points.
func start(s *config.Spec) *hcl.Range {
	if len(s.Files) == 0 {
		return nil
	}
	p := hcl.Pos{Line: 1, Column: 1}
	return &hcl.Range{Filename: s.Files[0], Start: p, End: p}
}
