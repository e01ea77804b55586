package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Override files, Terraform's way: files named override.hcl or
// *_override.hcl change blocks of the other files instead of declaring new
// ones.

// IsOverrideFile reports whether a spec file is an override file, by
// Terraform's naming: override.hcl, or a name ending in _override.hcl
// (and the .hcl.json forms).
func IsOverrideFile(path string) bool {
	n := filepath.Base(path)
	n = strings.TrimSuffix(n, ".json")
	n = strings.TrimSuffix(n, ".hcl")
	return n == "override" || strings.HasSuffix(n, "_override")
}

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

// applyOverrides lays each override block over the base block of the same
// type and name. Locals are returned to be replaced one by one once
// decoded; an override of a block no base file declares is an error.
func applyOverrides(base, overrides []*hcl.Block) ([]*hcl.Block, []*hcl.Block, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var locals []*hcl.Block
	out := append([]*hcl.Block{}, base...)
	for _, o := range overrides {
		if o.Type == "locals" {
			locals = append(locals, o)
			continue
		}
		i := findBlock(out, o)
		if i < 0 {
			what := o.Type + " block"
			if len(o.Labels) > 0 {
				what = fmt.Sprintf("%s %q", o.Type, o.Labels[0])
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing base block for override",
				Detail:  fmt.Sprintf("No base file declares the %s this override file changes. An override file (override.hcl or *_override.hcl) only changes blocks declared in other files; declare it there, or rename this file.", what),
				Subject: o.DefRange.Ptr()})
			continue
		}
		merged := *out[i]
		merged.Body = mergeBody{Base: out[i].Body, Override: o.Body}
		out[i] = &merged
	}
	return out, locals, diags
}

func findBlock(blocks []*hcl.Block, o *hcl.Block) int {
	for i, b := range blocks {
		if b.Type != o.Type || len(b.Labels) != len(o.Labels) {
			continue
		}
		same := true
		for j := range b.Labels {
			same = same && b.Labels[j] == o.Labels[j]
		}
		if same {
			return i
		}
	}
	return -1
}

// overrideLocals replaces locals by name with those of override files.
func (s *Spec) overrideLocals(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		ls, d := decodeLocalsBlock(b)
		diags = append(diags, d...)
		for _, l := range ls {
			found := false
			for _, base := range s.Locals {
				if base.Name == l.Name {
					base.Expr, found = l.Expr, true
				}
			}
			if !found {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing base local for override",
					Detail:  fmt.Sprintf("No base file declares local %q; an override file only changes locals declared in other files.", l.Name),
					Subject: l.Expr.Range().Ptr()})
			}
		}
	}
	return diags
}
