package config

import (
	"github.com/hashicorp/hcl/v2"
)

// DatasetBlock is a `dataset "name" {}` block as decoded. Its expressions
// may read scale.*; resolve.Dataset makes a datagen.Dataset of it per scale.
type DatasetBlock struct {
	Name      string
	Seed      hcl.Expression
	TxSize    hcl.Expression
	Entities  []*EntityBlock
	History   []*HistoryBlock
	Marks     []*MarkBlock
	Truth     []*TruthBlock
	Writes    []*WriteBlock // writes.go
	DeclRange hcl.Range
}

// EntityBlock is `entity "kind" {}`: count entities, or per_parent
// children of each entity of parent.
type EntityBlock struct {
	Name      string
	Count     hcl.Expression
	Parent    hcl.Expression
	PerParent hcl.Expression
	Attrs     []*AttrBlock
	DeclRange hcl.Range
}

// AttrBlock is `attr "ident" {}`.
type AttrBlock struct {
	Ident                string
	Type                 hcl.Expression
	Unique, Index, Many  hcl.Expression
	Gen                  hcl.Expression
	DeclRange, TypeRange hcl.Range
}

// HistoryBlock is `history "name" {}`.
type HistoryBlock struct {
	Name                          string
	Entity, Attr, Fraction, Files hcl.Expression
	Gen, States, Fractions        hcl.Expression
	Time, Delay, After            hcl.Expression
	DeclRange                     hcl.Range
}

// MarkBlock is `mark "name" {}`.
type MarkBlock struct {
	Name              string
	After, BeforeLast hcl.Expression
	DeclRange         hcl.Range
}

// TruthBlock is `truth "name" {}`: an expected answer the generator
// computes. Which attribute is set decides the kind.
type TruthBlock struct {
	Name      string
	Attrs     map[string]*hcl.Attribute
	Where     []*hcl.Block
	DeclRange hcl.Range
}

var datasetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "seed"}, {Name: "tx_size"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "entity", LabelNames: []string{"name"}},
		{Type: "history", LabelNames: []string{"name"}},
		{Type: "mark", LabelNames: []string{"name"}},
		{Type: "truth", LabelNames: []string{"name"}},
		{Type: "write", LabelNames: []string{"name"}},
	},
}

var entitySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "parent"}, {Name: "per_parent"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "attr", LabelNames: []string{"ident"}}},
}

var attrSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "type", Required: true}, {Name: "gen", Required: true},
	{Name: "unique"}, {Name: "index"}, {Name: "many"},
}}

var historySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "entity", Required: true}, {Name: "attr", Required: true},
	{Name: "fraction"}, {Name: "files"}, {Name: "gen"}, {Name: "states"}, {Name: "fractions"},
	{Name: "time"}, {Name: "delay"}, {Name: "after"},
}}

var markSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "after"}, {Name: "before_last"}}}

var truthSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "count_by"}, {Name: "count"}, {Name: "sample"}, {Name: "changed"},
		{Name: "sum"}, {Name: "avg"}, {Name: "min"}, {Name: "max"}, {Name: "by"}, {Name: "key"},
		{Name: "n"}, {Name: "attrs"}, {Name: "inverse"}, {Name: "ref_attrs"}, {Name: "as_of"}, {Name: "since"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "where"}, {Type: "or"}},
}

var whereSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "attr", Required: true}, {Name: "op", Required: true}, {Name: "value", Required: true},
}}

// orSchema is an `or {}` block of a truth: at least two where blocks, of
// which one must hold.
var orSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "where"}}}

// WhereContent decodes a truth's `where` block. Where and or blocks are
// decoded when the truth is resolved, so their mistakes are reported with
// the truth's own.
func WhereContent(w *hcl.Block) (*hcl.BodyContent, hcl.Diagnostics) {
	return w.Body.Content(whereSchema)
}

// OrContent decodes a truth's `or` block: the where blocks it holds.
func OrContent(w *hcl.Block) (*hcl.BodyContent, hcl.Diagnostics) { return w.Body.Content(orSchema) }

func decodeDatasetBlock(b *hcl.Block) (*DatasetBlock, hcl.Diagnostics) {
	ds := &DatasetBlock{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("dataset", ds.Name, b.LabelRanges[0])
	content, d := b.Body.Content(datasetSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["seed"]; ok {
		ds.Seed = a.Expr
	}
	if a, ok := content.Attributes["tx_size"]; ok {
		ds.TxSize = a.Expr
	}
	seen := map[string]hcl.Range{}
	unique := func(kind, name string, rng hcl.Range) {
		key := kind + "\x00" + name
		if prev, ok := seen[key]; ok {
			diags = append(diags, DuplicateDiag(kind, name, rng, prev))
		}
		seen[key] = rng
	}
	for _, blk := range content.Blocks {
		name := blk.Labels[0]
		switch blk.Type {
		case "entity":
			unique("entity", name, blk.DefRange)
			e := &EntityBlock{Name: name, DeclRange: blk.DefRange}
			c, d := blk.Body.Content(entitySchema)
			diags = append(diags, d...)
			if a, ok := c.Attributes["count"]; ok {
				e.Count = a.Expr
			}
			if a, ok := c.Attributes["parent"]; ok {
				e.Parent = a.Expr
			}
			if a, ok := c.Attributes["per_parent"]; ok {
				e.PerParent = a.Expr
			}
			if (e.Count == nil) == (e.Parent == nil) || (e.Parent == nil) != (e.PerParent == nil) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid entity",
					Detail:  "An entity sets count, or parent with per_parent (how many children each parent has).",
					Subject: blk.DefRange.Ptr()})
			}
			for _, ab := range c.Blocks {
				unique("attr", ab.Labels[0], ab.DefRange)
				ac, d := ab.Body.Content(attrSchema)
				diags = append(diags, d...)
				if d.HasErrors() {
					continue
				}
				at := &AttrBlock{Ident: ab.Labels[0], DeclRange: ab.DefRange, Type: ac.Attributes["type"].Expr, Gen: ac.Attributes["gen"].Expr}
				at.TypeRange = at.Type.Range()
				if a, ok := ac.Attributes["unique"]; ok {
					at.Unique = a.Expr
				}
				if a, ok := ac.Attributes["index"]; ok {
					at.Index = a.Expr
				}
				if a, ok := ac.Attributes["many"]; ok {
					at.Many = a.Expr
				}
				e.Attrs = append(e.Attrs, at)
			}
			ds.Entities = append(ds.Entities, e)
		case "history":
			unique("history", name, blk.DefRange)
			c, d := blk.Body.Content(historySchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			h := &HistoryBlock{Name: name, DeclRange: blk.DefRange, Entity: c.Attributes["entity"].Expr,
				Attr: c.Attributes["attr"].Expr}
			for n, dst := range map[string]*hcl.Expression{"fraction": &h.Fraction, "files": &h.Files, "gen": &h.Gen,
				"states": &h.States, "fractions": &h.Fractions, "time": &h.Time, "delay": &h.Delay, "after": &h.After} {
				if a, ok := c.Attributes[n]; ok {
					*dst = a.Expr
				}
			}
			switch {
			case h.States != nil && (h.Fractions == nil || h.Fraction != nil || h.Gen != nil):
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid history",
					Detail: "A process history (states) sets fractions, one per step, and neither fraction nor gen.", Subject: blk.DefRange.Ptr()})
			case h.States == nil && (h.Fraction == nil || h.Fractions != nil):
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid history",
					Detail: "A history sets fraction (or states with fractions, for a process).", Subject: blk.DefRange.Ptr()})
			case (h.Time == nil) != (h.Delay == nil):
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid history",
					Detail: "time (an instant attribute) and delay ([min, max] per change) go together.", Subject: blk.DefRange.Ptr()})
			}
			ds.History = append(ds.History, h)
		case "mark":
			unique("mark", name, blk.DefRange)
			c, d := blk.Body.Content(markSchema)
			diags = append(diags, d...)
			m := &MarkBlock{Name: name, DeclRange: blk.DefRange}
			if a, ok := c.Attributes["after"]; ok {
				m.After = a.Expr
			}
			if a, ok := c.Attributes["before_last"]; ok {
				m.BeforeLast = a.Expr
			}
			if (m.After == nil) == (m.BeforeLast == nil) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid mark",
					Detail: `A mark sets exactly one of after ("initial" or a history name) and before_last (a history name).`, Subject: blk.DefRange.Ptr()})
			}
			ds.Marks = append(ds.Marks, m)
		case "truth":
			unique("truth", name, blk.DefRange)
			diags = append(diags, checkName("truth", name, blk.LabelRanges[0])...)
			c, d := blk.Body.Content(truthSchema)
			diags = append(diags, d...)
			ds.Truth = append(ds.Truth, &TruthBlock{Name: name, Attrs: c.Attributes, Where: c.Blocks, DeclRange: blk.DefRange})
		case "write":
			unique("write", name, blk.DefRange)
			w, d := decodeWriteBlock(blk)
			diags = append(diags, d...)
			ds.Writes = append(ds.Writes, w)
		}
	}
	return ds, diags
}
