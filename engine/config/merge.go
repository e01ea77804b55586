package config

import (
	"github.com/hashicorp/hcl/v2"
)

// mergeBody is a block body with an override body laid over it, with
// Terraform's override semantics: an attribute of the override replaces
// the base's attribute of the same name (a map such as settings is
// replaced whole, not merged key by key), and nested blocks of a type the
// override declares replace every base block of that type. Attributes keep
// their own ranges, so a diagnostic points into whichever file the winning
// attribute came from.
type mergeBody struct {
	Base     hcl.Body
	Override hcl.Body
}

var _ hcl.Body = mergeBody{}

func (b mergeBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	base, diags := b.Base.Content(schema)
	over, d := b.Override.Content(overrideSchema(schema))
	diags = append(diags, d...)
	return mergeContent(base, over), diags
}

func (b mergeBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	base, baseRemain, diags := b.Base.PartialContent(schema)
	over, overRemain, d := b.Override.PartialContent(overrideSchema(schema))
	diags = append(diags, d...)
	return mergeContent(base, over), mergeBody{Base: baseRemain, Override: overRemain}, diags
}

func (b mergeBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	attrs, diags := b.Base.JustAttributes()
	over, d := b.Override.JustAttributes()
	diags = append(diags, d...)
	out := make(hcl.Attributes, len(attrs)+len(over))
	for n, a := range attrs {
		out[n] = a
	}
	for n, a := range over {
		out[n] = a
	}
	return out, diags
}

func (b mergeBody) MissingItemRange() hcl.Range { return b.Base.MissingItemRange() }

func mergeContent(base, over *hcl.BodyContent) *hcl.BodyContent {
	out := &hcl.BodyContent{Attributes: hcl.Attributes{}, MissingItemRange: base.MissingItemRange}
	for n, a := range base.Attributes {
		out.Attributes[n] = a
	}
	for n, a := range over.Attributes {
		out.Attributes[n] = a
	}
	replaced := map[string]bool{}
	for _, blk := range over.Blocks {
		replaced[blk.Type] = true
	}
	for _, blk := range base.Blocks {
		if !replaced[blk.Type] {
			out.Blocks = append(out.Blocks, blk)
		}
	}
	out.Blocks = append(out.Blocks, over.Blocks...)
	return out
}

// overrideSchema is schema with every attribute optional: an override
// names only what it changes, and the base supplies the required rest.
func overrideSchema(schema *hcl.BodySchema) *hcl.BodySchema {
	out := &hcl.BodySchema{Blocks: schema.Blocks}
	for _, a := range schema.Attributes {
		a.Required = false
		out.Attributes = append(out.Attributes, a)
	}
	return out
}
