package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// BackendBlock is a `backend "name" {}` block as decoded: a driver and how
// to set up, load and talk to one deployment, its expressions kept for
// each cell (engine/resolve makes a resolve.CellBackend of it). Attributes
// the engine does not know are the driver's own options (dsn, database,
// path, protocol, ...).
type BackendBlock struct {
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
		{Name: "analyze"}, {Name: "vacuum"}, {Name: "restart"}, {Name: "drop_caches"},
		{Name: "client_model"}, {Name: "clients"}, {Name: "processes"}, // clients: client_model's older name
		{Name: "skip_scenarios"},
		{Name: "extensions"}, {Name: "allow_unsigned_extensions"}, {Name: "session_setup"}, {Name: "explain"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "load"}},
}

// loadSchema: tables for the engine's bulk path, or statement (and its
// format, batch_datoms, ids) for a load through the store's own API;
// resolve says which is required.
var loadSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "tables"}, {Name: "jobs"}, {Name: "batch_rows"},
	{Name: "statement"}, {Name: "format"}, {Name: "batch_datoms"}, {Name: "ids"},
}}

func decodeBackendBlock(b *hcl.Block) (*BackendBlock, hcl.Diagnostics) {
	be := &BackendBlock{Name: b.Labels[0], DeclRange: b.DefRange, Attrs: map[string]hcl.Expression{}}
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
			diags = append(diags, DuplicateDiag("load", "", lb.DefRange, content.Blocks[0].DefRange))
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
func (b *BackendBlock) Object() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(b.Name), "driver": cty.StringVal(b.Driver)})
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
