package resolve

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/plan"
	"github.com/mentat-spec/mentat-spec/engine/redact"
	"github.com/zclconf/go-cty/cty"
)

// CellBackend is a backend block resolved for one (scale, backend) cell
// (plan.Backend: the plan carries it).
type CellBackend = plan.Backend

// Load is the backend's `load {}` block (plan.Load).
type Load = plan.Load

// Client models of a backend's `client_model` attribute.
const (
	ClientsGoroutine = plan.ClientsGoroutine
	ClientsProcess   = plan.ClientsProcess
	ClientsProcesses = plan.ClientsProcesses
)

// LoadTableKeys are the keys `load { tables = {...} }` accepts.
var LoadTableKeys = plan.LoadTableKeys

// Backend evaluates a backend block for one cell; dialect is its driver's
// (Dialect).
func Backend(b *config.BackendBlock, ctx *hcl.EvalContext, dialect string) (*CellBackend, hcl.Diagnostics) {
	bc := &CellBackend{Name: b.Name, Driver: b.Driver, Dialect: dialect, Options: map[string]string{}, Settings: map[string]string{},
		Load: Load{Jobs: 1, BatchRows: 10000}}
	// The block's parts first (each sets fields of its own), then its own
	// attributes: the block is read top-down, once.
	diags := resolveClients(b, ctx, bc)
	diags = append(diags, resolveSession(b, ctx, bc)...)
	if b.Load != nil {
		diags = append(diags, resolveLoadStatement(b, ctx, &bc.Load)...)
	}
	names := make([]string, 0, len(b.Options))
	for n := range b.Options {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := b.Options[n]
		v, d := a.Expr.Value(ctx)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if !v.IsWhollyKnown() {
			continue
		}
		s, err := optionString(v)
		if err != nil {
			diags = append(diags, hcleval.AttrError(a.Expr, "Invalid driver option", fmt.Sprintf("Option %q: %s.", n, err)))
			continue
		}
		bc.Options[n] = s
	}
	// A driver that takes a dialect option (the adapter driver) speaks
	// the SQL its backend names.
	if d := bc.Options["dialect"]; d != "" {
		bc.Dialect = d
	}
	if e, ok := b.Attrs["settings"]; ok {
		m, d := hcleval.StringMap(e, ctx, "settings")
		diags = append(diags, d...)
		bc.Settings = m
	}
	lists := map[string]*[]string{"setup": &bc.Setup, "after_load": &bc.AfterLoad, "analyze": &bc.Analyze,
		"vacuum": &bc.Vacuum, "restart": &bc.Restart, "drop_caches": &bc.DropCaches, "skip_scenarios": &bc.SkipScenarios}
	for n, dst := range lists {
		if e, ok := b.Attrs[n]; ok {
			l, d := hcleval.StringList(e, ctx, n)
			diags = append(diags, d...)
			*dst = l
			if i := slices.IndexFunc(l, redact.Contains); i >= 0 && (n == "restart" || n == "drop_caches") {
				diags = append(diags, hcleval.AttrError(e, sensitiveArgvSummary, fmt.Sprintf(sensitiveArgvFormat, n, i+1, config.EnvVarPrefix, config.EnvVarPrefix)))
			}
		}
	}
	if b.Load != nil {
		bc.Load.Declared = true
		if a, ok := b.Load["tables"]; ok {
			m, d := hcleval.StringMap(a.Expr, ctx, "tables")
			diags = append(diags, d...)
			for k := range m {
				known := false
				for _, lk := range LoadTableKeys {
					known = known || lk == k
				}
				if !known {
					diags = append(diags, hcleval.AttrError(a.Expr, "Unknown load table key",
						fmt.Sprintf("tables.%s: the keys are %v (the attribute table and one datom table per storage class).", k, LoadTableKeys)))
				}
			}
			for _, k := range LoadTableKeys {
				if _, ok := m[k]; !ok && !d.HasErrors() {
					diags = append(diags, hcleval.AttrError(a.Expr, "Missing load table", fmt.Sprintf("tables needs a %q table.", k)))
				}
			}
			bc.Load.Tables = m
		}
		for n, dst := range map[string]*int{"jobs": &bc.Load.Jobs, "batch_rows": &bc.Load.BatchRows} {
			if a, ok := b.Load[n]; ok {
				v, d := hcleval.Int(a.Expr, ctx, n)
				diags = append(diags, d...)
				if !d.HasErrors() && v < 1 {
					diags = append(diags, hcleval.AttrError(a.Expr, "Invalid "+n, n+" must be at least 1."))
				}
				*dst = int(v)
			}
		}
	}
	return bc, diags
}

// resolveClients reads `client_model` ("goroutine", its old name
// "threads", or "process"; `clients` is the attribute's older name) and
// `processes = N`, which alone means N worker processes sharing the
// clients. Either set to null counts as not set, so that one variable can
// choose between them (specs/full.hcl's client_model).
func resolveClients(b *config.BackendBlock, ctx *hcl.EvalContext, bc *CellBackend) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bc.ClientModel = ClientsGoroutine
	model, ce := clientModelAttr(b, ctx, &diags)
	hasClients := ce != nil
	pe, hasProcesses := b.Attrs["processes"]
	hasProcesses = hasProcesses && !isNull(pe, ctx)
	if hasClients {
		s, d := hcleval.String(ce, ctx, model)
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case s == ClientsGoroutine || s == "threads":
		case s == ClientsProcess:
			bc.ClientModel = ClientsProcess
		default:
			diags = append(diags, hcleval.AttrError(ce, "Unsupported client model",
				fmt.Sprintf("%s = %q: the models are \"goroutine\" (one engine process; \"threads\" is the same), \"process\" (one worker process per client), or processes = N (N worker processes sharing the clients).", model, s)))
		}
	}
	if hasProcesses {
		n, d := hcleval.Int(pe, ctx, "processes")
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case n < 1:
			diags = append(diags, hcleval.AttrError(pe, "Invalid processes", "processes must be at least 1."))
		case hasClients:
			diags = append(diags, hcleval.AttrError(pe, "Conflicting client models",
				"Set either "+model+" (goroutine or process) or processes = N, not both."))
		default:
			bc.ClientModel, bc.Processes = ClientsProcesses, int(n)
		}
	}
	return diags
}

// clientModelAttr is the backend's client model attribute not set to null
// and the name it is written with: client_model, or its older name
// clients (a scenario's clients are its client counts). Both is a mistake.
func clientModelAttr(b *config.BackendBlock, ctx *hcl.EvalContext, diags *hcl.Diagnostics) (string, hcl.Expression) {
	set := func(name string) hcl.Expression {
		if e, ok := b.Attrs[name]; ok && !isNull(e, ctx) {
			return e
		}
		return nil
	}
	model, older := set("client_model"), set("clients")
	switch {
	case model != nil && older != nil:
		*diags = append(*diags, hcleval.AttrError(older, "Conflicting arguments",
			"Set client_model or clients, its older name, not both."))
		return "client_model", model
	case older != nil:
		return "clients", older
	}
	return "client_model", model
}

// isNull reports whether expr evaluates to null. An expression that does
// not evaluate is not null: its own evaluation reports the error.
func isNull(expr hcl.Expression, ctx *hcl.EvalContext) bool {
	v, diags := expr.Value(ctx)
	return !diags.HasErrors() && v.IsNull()
}

// CheckSkips reports skip_scenarios names that are no declared scenario.
func CheckSkips(s *config.Spec, b *config.BackendBlock, bc *CellBackend) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, n := range bc.SkipScenarios {
		if s.Scenario(n) == nil {
			diags = append(diags, hcleval.AttrError(b.Attrs["skip_scenarios"], "Unknown scenario",
				fmt.Sprintf("Backend %q: skip_scenarios names %q, which is not a declared scenario.", b.Name, n)))
		}
	}
	return diags
}

// optionString is a driver option's value as the driver gets it: a
// string, number or bool as text; a list or map of them (an adapter's
// command argv, its env) as JSON.
func optionString(v cty.Value) (string, error) {
	if v.IsNull() || !v.IsWhollyKnown() {
		return hcleval.Primitive(v)
	}
	t := v.Type()
	if !(t.IsListType() || t.IsTupleType() || t.IsSetType() || t.IsMapType() || t.IsObjectType()) {
		return hcleval.Primitive(v)
	}
	var out any
	if t.IsMapType() || t.IsObjectType() {
		m := map[string]string{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			s, err := hcleval.Primitive(e)
			if err != nil {
				return "", fmt.Errorf("%s: %v", k.AsString(), err)
			}
			m[k.AsString()] = s
		}
		out = m
	} else {
		l := []string{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			s, err := hcleval.Primitive(e)
			if err != nil {
				return "", fmt.Errorf("element %d: %v", len(l), err)
			}
			l = append(l, s)
		}
		out = l
	}
	b, err := json.Marshal(out)
	return string(b), err
}
