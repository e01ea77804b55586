package config

import (
	"fmt"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Backend is a `backend "name" {}` block: a driver and how to set up,
// load and talk to one deployment. Attributes the engine does not know are
// the driver's own options (dsn, database, path, protocol, ...).
type Backend struct {
	Name      string
	Driver    string
	Attrs     map[string]hcl.Expression // engine attributes, evaluated per cell
	Options   map[string]*hcl.Attribute // driver options, evaluated per cell
	Load      map[string]*hcl.Attribute
	LoadRange hcl.Range
	DeclRange hcl.Range
	DriverRng hcl.Range
}

var backendSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "driver", Required: true}, {Name: "settings"}, {Name: "setup"}, {Name: "after_load"},
		{Name: "analyze"}, {Name: "vacuum"}, {Name: "restart"}, {Name: "drop_caches"}, {Name: "clients"}, {Name: "processes"},
		{Name: "skip_scenarios"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "load"}},
}

var loadSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "tables", Required: true}, {Name: "jobs"}, {Name: "batch_rows"},
}}

func decodeBackendBlock(b *hcl.Block) (*Backend, hcl.Diagnostics) {
	be := &Backend{Name: b.Labels[0], DeclRange: b.DefRange, Attrs: map[string]hcl.Expression{}}
	diags := checkName("backend", be.Name, b.LabelRanges[0])
	content, remain, d := b.Body.PartialContent(backendSchema)
	diags = append(diags, d...)
	if d.HasErrors() {
		return be, diags
	}
	for n, a := range content.Attributes {
		if n == "driver" {
			diags = append(diags, decodeLiteral(a, cty.String, &be.Driver)...)
			be.DriverRng = a.Expr.Range()
			continue
		}
		be.Attrs[n] = a.Expr
	}
	for i, lb := range content.Blocks {
		if i > 0 {
			diags = append(diags, duplicateDiag("load", "", lb.DefRange, content.Blocks[0].DefRange))
			continue
		}
		lc, d := lb.Body.Content(loadSchema)
		diags = append(diags, d...)
		be.Load, be.LoadRange = lc.Attributes, lb.DefRange
	}
	be.Options, d = driverOptions(b.Body, remain)
	diags = append(diags, d...)
	return be, diags
}

// Object is backend.* as seen by expressions.
func (b *Backend) Object() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(b.Name), "driver": cty.StringVal(b.Driver)})
}

// BackendConfig is a backend resolved for one cell.
type BackendConfig struct {
	Name       string
	Driver     string
	Options    map[string]string
	Settings   map[string]string
	Setup      []string // SQL texts, each possibly several statements
	AfterLoad  []string
	Analyze    []string // statements timed as analyze_s in loads.csv
	Vacuum     []string // statements timed as vacuum_s
	Restart    []string // a command run by the engine (argv)
	DropCaches []string // a command run by the engine (argv)
	Load       LoadConfig
	// ClientModel is how clients run: ClientsGoroutine, ClientsProcess
	// (one worker process per client) or ClientsProcesses (Processes
	// worker processes sharing the clients).
	ClientModel string
	Processes   int
	// SkipScenarios are scenarios this backend does not run (the seed's
	// per-backend scenario filter).
	SkipScenarios []string
}

// Client models of a backend's `clients` attribute.
const (
	ClientsGoroutine = "goroutine"
	ClientsProcess   = "process"
	ClientsProcesses = "processes"
)

// LoadConfig is the backend's `load {}` block.
type LoadConfig struct {
	// Tables maps "attrs" and the storage classes "text", "int", "real" to
	// table names.
	Tables    map[string]string
	Jobs      int
	BatchRows int
	Declared  bool
}

// LoadTableKeys are the keys `load { tables = {...} }` accepts.
var LoadTableKeys = []string{"attrs", "text", "int", "real"}

// Resolve evaluates the backend for one cell.
func (b *Backend) Resolve(ctx *hcl.EvalContext) (*BackendConfig, hcl.Diagnostics) {
	bc := &BackendConfig{Name: b.Name, Driver: b.Driver, Options: map[string]string{}, Settings: map[string]string{},
		Load: LoadConfig{Jobs: 1, BatchRows: 10000}}
	var diags hcl.Diagnostics
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
		s, err := primitiveString(v)
		if err != nil {
			diags = append(diags, attrErr(a.Expr, "Invalid driver option", fmt.Sprintf("Option %q: %s.", n, err)))
			continue
		}
		bc.Options[n] = s
	}
	if e, ok := b.Attrs["settings"]; ok {
		m, d := evalStringMap(e, ctx, "settings")
		diags = append(diags, d...)
		bc.Settings = m
	}
	lists := map[string]*[]string{"setup": &bc.Setup, "after_load": &bc.AfterLoad, "analyze": &bc.Analyze,
		"vacuum": &bc.Vacuum, "restart": &bc.Restart, "drop_caches": &bc.DropCaches, "skip_scenarios": &bc.SkipScenarios}
	for n, dst := range lists {
		if e, ok := b.Attrs[n]; ok {
			l, d := evalStringList(e, ctx, n)
			diags = append(diags, d...)
			*dst = l
		}
	}
	diags = append(diags, b.resolveClients(ctx, bc)...)
	if b.Load != nil {
		bc.Load.Declared = true
		if a, ok := b.Load["tables"]; ok {
			m, d := evalStringMap(a.Expr, ctx, "tables")
			diags = append(diags, d...)
			for k := range m {
				known := false
				for _, lk := range LoadTableKeys {
					known = known || lk == k
				}
				if !known {
					diags = append(diags, attrErr(a.Expr, "Unknown load table key",
						fmt.Sprintf("tables.%s: the keys are %v (the attribute table and one datom table per storage class).", k, LoadTableKeys)))
				}
			}
			for _, k := range LoadTableKeys {
				if _, ok := m[k]; !ok && !d.HasErrors() {
					diags = append(diags, attrErr(a.Expr, "Missing load table", fmt.Sprintf("tables needs a %q table.", k)))
				}
			}
			bc.Load.Tables = m
		}
		for n, dst := range map[string]*int{"jobs": &bc.Load.Jobs, "batch_rows": &bc.Load.BatchRows} {
			if a, ok := b.Load[n]; ok {
				v, d := evalInt(a.Expr, ctx, n)
				diags = append(diags, d...)
				if !d.HasErrors() && v < 1 {
					diags = append(diags, attrErr(a.Expr, "Invalid "+n, n+" must be at least 1."))
				}
				*dst = int(v)
			}
		}
	}
	return bc, diags
}

// driverOptions returns the attributes the backend schema does not name.
// hclsyntax's remaining body still reports the load block it hid, so
// native syntax is read directly.
func driverOptions(body, remain hcl.Body) (hcl.Attributes, hcl.Diagnostics) {
	switch b := body.(type) {
	case dirBody:
		r, _ := remain.(dirBody)
		attrs, diags := driverOptions(b.Body, r.Body)
		return b.attrs(attrs), diags
	case mergeBody:
		r, _ := remain.(mergeBody)
		attrs, diags := driverOptions(b.Base, r.Base)
		over, d := driverOptions(b.Override, r.Override)
		for n, a := range over {
			attrs[n] = a
		}
		return attrs, append(diags, d...)
	}
	sb, ok := body.(*hclsyntax.Body)
	if !ok {
		return remain.JustAttributes()
	}
	known := map[string]bool{}
	for _, a := range backendSchema.Attributes {
		known[a.Name] = true
	}
	var diags hcl.Diagnostics
	for _, blk := range sb.Blocks {
		if blk.Type != "load" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported block type",
				Detail: fmt.Sprintf("Blocks of type %q are not expected here; a backend holds only a load block.", blk.Type), Subject: blk.TypeRange.Ptr()})
		}
	}
	attrs := hcl.Attributes{}
	for name, a := range sb.Attributes {
		if !known[name] {
			attrs[name] = a.AsHCLAttribute()
		}
	}
	return attrs, diags
}

// resolveClients reads `clients` ("goroutine", its old name "threads", or
// "process") and `processes = N`, which alone means N worker processes
// sharing the clients. Either set to null counts as not set, so that one
// variable can choose between them (specs/full.hcl's client_model).
func (b *Backend) resolveClients(ctx *hcl.EvalContext, bc *BackendConfig) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bc.ClientModel = ClientsGoroutine
	ce, hasClients := b.Attrs["clients"]
	hasClients = hasClients && !isNull(ce, ctx)
	if hasClients {
		s, d := evalString(ce, ctx, "clients")
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case s == ClientsGoroutine || s == "threads":
		case s == ClientsProcess:
			bc.ClientModel = ClientsProcess
		default:
			diags = append(diags, attrErr(ce, "Unsupported client model",
				fmt.Sprintf("clients = %q: the models are \"goroutine\" (one engine process; \"threads\" is the same), \"process\" (one worker process per client), or processes = N (N worker processes sharing the clients).", s)))
		}
	}
	if pe, ok := b.Attrs["processes"]; ok && !isNull(pe, ctx) {
		n, d := evalInt(pe, ctx, "processes")
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case n < 1:
			diags = append(diags, attrErr(pe, "Invalid processes", "processes must be at least 1."))
		case hasClients:
			diags = append(diags, attrErr(pe, "Conflicting client models",
				"Set either clients (goroutine or process) or processes = N, not both."))
		default:
			bc.ClientModel, bc.Processes = ClientsProcesses, int(n)
		}
	}
	return diags
}

// isNull reports whether expr evaluates to null. An expression that does
// not evaluate is not null: its own evaluation reports the error.
func isNull(expr hcl.Expression, ctx *hcl.EvalContext) bool {
	v, diags := expr.Value(ctx)
	return !diags.HasErrors() && v.IsNull()
}

// CheckSkips reports skip_scenarios names that are no declared scenario.
func (s *Spec) CheckSkips(b *Backend, bc *BackendConfig) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, n := range bc.SkipScenarios {
		if s.scenario(n) == nil {
			diags = append(diags, attrErr(b.Attrs["skip_scenarios"], "Unknown scenario",
				fmt.Sprintf("Backend %q: skip_scenarios names %q, which is not a declared scenario.", b.Name, n)))
		}
	}
	return diags
}
