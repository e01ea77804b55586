package config

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Dataset is a `dataset "name" {}` block. Its expressions may read scale.*
// and are resolved per scale into a datagen.Dataset.
type Dataset struct {
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

func decodeDatasetBlock(b *hcl.Block) (*Dataset, hcl.Diagnostics) {
	ds := &Dataset{Name: b.Labels[0], DeclRange: b.DefRange}
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
			diags = append(diags, duplicateDiag(kind, name, rng, prev))
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

// Resolve evaluates the dataset for one scale and validates it with the
// generator. The result is Finish()ed.
func (ds *Dataset) Resolve(ctx *hcl.EvalContext) (*datagen.Dataset, hcl.Diagnostics) {
	out := &datagen.Dataset{Name: ds.Name, Seed: 1, TxSize: 500}
	var diags hcl.Diagnostics
	if ds.Seed != nil {
		n, d := evalInt(ds.Seed, ctx, "seed")
		diags = append(diags, d...)
		if n < 0 {
			diags = append(diags, attrErr(ds.Seed, "Invalid seed", "seed must not be negative."))
		}
		out.Seed = uint64(n)
	}
	if ds.TxSize != nil {
		n, d := evalInt(ds.TxSize, ctx, "tx_size")
		diags = append(diags, d...)
		if !d.HasErrors() && n < 1 {
			diags = append(diags, attrErr(ds.TxSize, "Invalid tx_size", "tx_size must be at least 1."))
		}
		out.TxSize = int(n)
	}
	for _, e := range ds.Entities {
		ent := datagen.Entity{Name: e.Name}
		if e.Parent != nil && e.PerParent != nil {
			var d hcl.Diagnostics
			ent.Parent, d = evalString(e.Parent, ctx, "parent")
			diags = append(diags, d...)
			gv, d := e.PerParent.Value(ctx)
			diags = append(diags, d...)
			if !d.HasErrors() {
				g, ok := AsGenerator(gv)
				if !ok {
					diags = append(diags, attrErr(e.PerParent, "Invalid per_parent", "per_parent must be uniform(min, max) or weighted({\"1\" = 3, \"2\" = 1})."))
				}
				ent.PerParent = g
			}
		}
		if e.Count != nil {
			n, d := evalInt(e.Count, ctx, "count")
			diags = append(diags, d...)
			if !d.HasErrors() && n < 0 {
				diags = append(diags, attrErr(e.Count, "Invalid count", "count must not be negative."))
			}
			ent.Count = n
		}
		for _, a := range e.Attrs {
			at, d := a.resolve(ctx)
			diags = append(diags, d...)
			ent.Attrs = append(ent.Attrs, at)
		}
		out.Entities = append(out.Entities, ent)
	}
	for _, h := range ds.History {
		hist := datagen.History{Name: h.Name, Files: 1}
		var d hcl.Diagnostics
		hist.Entity, d = evalString(h.Entity, ctx, "entity")
		diags = append(diags, d...)
		hist.Attr, d = evalString(h.Attr, ctx, "attr")
		diags = append(diags, d...)
		if h.Fraction != nil {
			hist.Fraction, d = evalNumber(h.Fraction, ctx, "fraction")
			diags = append(diags, d...)
			if !d.HasErrors() && (hist.Fraction <= 0 || hist.Fraction > 1) {
				diags = append(diags, attrErr(h.Fraction, "Invalid fraction", "fraction must be in (0, 1]."))
			}
		}
		diags = append(diags, h.resolveProcess(ctx, &hist)...)
		if h.Files != nil {
			n, d := evalInt(h.Files, ctx, "files")
			diags = append(diags, d...)
			if !d.HasErrors() && n < 1 {
				diags = append(diags, attrErr(h.Files, "Invalid files", "files must be at least 1."))
			}
			hist.Files = int(n)
		}
		out.History = append(out.History, hist)
	}
	for _, m := range ds.Marks {
		mk := datagen.Mark{Name: m.Name}
		var d hcl.Diagnostics
		if m.After != nil {
			mk.After, d = evalString(m.After, ctx, "after")
		} else if m.BeforeLast != nil {
			mk.BeforeLast, d = evalString(m.BeforeLast, ctx, "before_last")
		}
		diags = append(diags, d...)
		out.Marks = append(out.Marks, mk)
	}
	for _, t := range ds.Truth {
		td, d := t.resolve(ctx)
		diags = append(diags, d...)
		out.Truth = append(out.Truth, td)
	}
	if diags.HasErrors() {
		return out, diags
	}
	err := out.Finish()
	if terr := truth.Check(out); terr != nil { // over the model, as far as it compiled
		err = errors.Join(err, terr)
	}
	if err != nil {
		// Finish and Check join one error per mistake: report each at its own line.
		for _, e := range splitErrors(err) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid dataset",
				Detail: fmt.Sprintf("Dataset %q: %s.", ds.Name, e), Subject: ds.locate(e).Ptr()})
		}
	}
	return out, diags
}

// splitErrors flattens errors.Join trees into their leaves.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// exprAt is an expression a datagen error may blame, by the word the
// error's text starts with after its block prefix.
type exprAt struct {
	word string
	expr hcl.Expression
}

// blame returns the range of the first expression whose word starts rest,
// or def.
func blame(def hcl.Range, rest string, cands ...exprAt) hcl.Range {
	for _, c := range cands {
		if c.expr != nil && strings.HasPrefix(rest, c.word+" ") {
			return c.expr.Range()
		}
	}
	return def
}

func attrExpr(attrs map[string]*hcl.Attribute, name string) hcl.Expression {
	if a, ok := attrs[name]; ok {
		return a.Expr
	}
	return nil
}

// locate finds where an error from datagen.Finish belongs. Each error
// starts with the block it is about (`entity "x" attr "y": `, `history
// "h": `, `mark "m": `, `truth "t": `) and then names the setting at
// fault, so the diagnostic points at that attribute, not at the dataset
// header or at a block the error merely mentions.
func (ds *Dataset) locate(err error) hcl.Range {
	msg := err.Error()
	prefix := func(kind, name string) (string, bool) {
		return strings.CutPrefix(msg, fmt.Sprintf("%s %q: ", kind, name))
	}
	for _, e := range ds.Entities {
		for _, a := range e.Attrs {
			rest, ok := strings.CutPrefix(msg, fmt.Sprintf("entity %q attr %q: ", e.Name, a.Ident))
			if !ok {
				continue
			}
			switch {
			case strings.HasPrefix(rest, "unknown value type"):
				return a.TypeRange
			case strings.HasPrefix(rest, "ident already declared") || a.Gen == nil:
				return a.DeclRange
			}
			return a.Gen.Range()
		}
	}
	for _, e := range ds.Entities {
		if rest, ok := prefix("entity", e.Name); ok {
			return blame(e.DeclRange, rest, exprAt{"count", e.Count}, exprAt{"parent", e.Parent}, exprAt{"per_parent", e.PerParent})
		}
	}
	for _, h := range ds.History {
		if rest, ok := prefix("history", h.Name); ok {
			return blame(h.DeclRange, rest, exprAt{"entity", h.Entity}, exprAt{"attr", h.Attr},
				exprAt{"fraction", h.Fraction}, exprAt{"files", h.Files}, exprAt{"gen:", h.Gen}, exprAt{"states", h.States},
				exprAt{"states:", h.States}, exprAt{"fractions", h.Fractions}, exprAt{"fractions:", h.Fractions},
				exprAt{"time", h.Time}, exprAt{"delay", h.Delay}, exprAt{"after", h.After})
		}
	}
	for _, m := range ds.Marks {
		if rest, ok := prefix("mark", m.Name); ok {
			return blame(m.DeclRange, rest, exprAt{"after", m.After}, exprAt{"before_last", m.BeforeLast})
		}
	}
	for _, t := range ds.Truth {
		rest, ok := prefix("truth", t.Name)
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "filter ") {
			return t.whereRange(rest)
		}
		a := func(n string) hcl.Expression { return attrExpr(t.Attrs, n) }
		// "attr" is the kind's own attribute (count_by, changed) or one of
		// a sample's attrs; "entity" is a sample's or a count's entity.
		attr := a("count_by")
		if attr == nil {
			attr = a("changed")
		}
		if attr == nil {
			attr = a("attrs")
		}
		entity := a("sample")
		if entity == nil {
			entity = a("count")
		}
		for _, k := range []string{"sum", "avg", "min", "max"} {
			if attr == nil {
				attr = a(k)
			}
		}
		return blame(t.DeclRange, rest, exprAt{"attr", attr}, exprAt{"entity", entity}, exprAt{"ref attr", a("ref_attrs")},
			exprAt{"by", a("by")}, exprAt{"key", a("key")},
			exprAt{"n", a("n")}, exprAt{"as_of", a("as_of")}, exprAt{"inverse", a("inverse")}, exprAt{"since", a("since")})
	}
	return ds.DeclRange
}

// whereRange finds the where block a "filter attr "x" ..." or "filter on
// "x": ..." error is about, by the literal value of its attr.
func (t *TruthBlock) whereRange(rest string) hcl.Range {
	for _, w := range t.Where {
		c, _, _ := w.Body.PartialContent(whereSchema)
		a, ok := c.Attributes["attr"]
		if !ok {
			continue
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() || v.Type() != cty.String || !v.IsKnown() || v.IsNull() {
			continue
		}
		q := fmt.Sprintf("%q", v.AsString())
		if strings.HasPrefix(rest, "filter attr "+q) {
			return a.Expr.Range()
		}
		if strings.HasPrefix(rest, "filter on "+q) {
			return w.DefRange
		}
	}
	if len(t.Where) > 0 {
		return t.Where[0].DefRange
	}
	return t.DeclRange
}

var valueTypes = map[string]datagen.ValueType{
	"string": datagen.TypeString, "keyword": datagen.TypeKeyword, "long": datagen.TypeLong,
	"double": datagen.TypeDouble, "boolean": datagen.TypeBoolean, "instant": datagen.TypeInstant, "ref": datagen.TypeRef,
}

func (a *AttrBlock) resolve(ctx *hcl.EvalContext) (datagen.Attr, hcl.Diagnostics) {
	at := datagen.Attr{Ident: a.Ident}
	var diags hcl.Diagnostics
	ty, d := evalString(a.Type, ctx, "type")
	diags = append(diags, d...)
	if !d.HasErrors() {
		vt, ok := valueTypes[ty]
		if !ok {
			diags = append(diags, attrErr(a.Type, "Unknown value type",
				fmt.Sprintf("%q is not a value type: use string, keyword, long, double, boolean, instant or ref.", ty)))
		}
		at.Type = vt
	}
	for _, f := range []struct {
		expr hcl.Expression
		name string
		dst  *bool
	}{{a.Unique, "unique", &at.Unique}, {a.Index, "index", &at.Index}, {a.Many, "many", &at.Many}} {
		if f.expr != nil {
			v, d := evalBool(f.expr, ctx, f.name)
			diags = append(diags, d...)
			*f.dst = v
		}
	}
	gv, d := a.Gen.Value(ctx)
	diags = append(diags, d...)
	if !d.HasErrors() {
		g, ok := AsGenerator(gv)
		if !ok {
			diags = append(diags, attrErr(a.Gen, "Invalid generator",
				"gen must be a generator call such as seq(\"user%d\"), uniform(1, 5), weighted({a = 1}), zipf(\"user\", 1.1), sample(\"label\", 0, 3), instant(...), const(...) or chance(0.5)."))
		}
		at.Gen = g
	}
	return at, diags
}

var whereOps = map[string]string{"=": "eq", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
	"eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "between": "between", "in": "in"}

// truthKinds are the attributes that name a truth's kind.
var truthKinds = []string{"count_by", "count", "sample", "changed", "sum", "avg", "min", "max"}

// resolveProcess evaluates a history's gen, states, fractions, time,
// delay and after.
func (h *HistoryBlock) resolveProcess(ctx *hcl.EvalContext, hist *datagen.History) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if h.Gen != nil {
		gv, d := h.Gen.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			g, ok := AsGenerator(gv)
			if !ok {
				diags = append(diags, attrErr(h.Gen, "Invalid generator", "gen must be a generator call such as uniform(1, 5) or weighted({a = 1})."))
			}
			hist.Gen = &g
		}
	}
	if h.States != nil {
		l, d := evalPrimitiveList(h.States, ctx, "states")
		diags = append(diags, d...)
		hist.States = l
	}
	if h.Fractions != nil {
		v, d := h.Fractions.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			lv, err := convert.Convert(v, cty.List(cty.Number))
			if err != nil || lv.IsNull() || !lv.IsWhollyKnown() {
				diags = append(diags, attrErr(h.Fractions, "Incorrect attribute value type", "fractions must be a list of numbers, one per step."))
			} else {
				for _, e := range lv.AsValueSlice() {
					hist.Fractions = append(hist.Fractions, num(e))
				}
			}
		}
	}
	if h.Time != nil {
		var d hcl.Diagnostics
		hist.Time, d = evalString(h.Time, ctx, "time")
		diags = append(diags, d...)
	}
	if h.Delay != nil {
		v, d := h.Delay.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			var ms []int64
			if v.IsKnown() && !v.IsNull() && v.CanIterateElements() {
				for it := v.ElementIterator(); it.Next(); {
					_, e := it.Element()
					n, err := durationMS(e)
					if err != nil {
						diags = append(diags, attrErr(h.Delay, "Invalid delay", err.Error()))
						break
					}
					ms = append(ms, n)
				}
			}
			if len(ms) != 2 {
				diags = append(diags, attrErr(h.Delay, "Invalid delay", `delay is [min, max]: milliseconds or durations such as "90m" or "2d".`))
			} else {
				hist.DelayMin, hist.DelayMax = ms[0], ms[1]
			}
		}
	}
	if h.After != nil {
		var d hcl.Diagnostics
		hist.After, d = evalString(h.After, ctx, "after")
		diags = append(diags, d...)
	}
	return diags
}

// evalPrimitiveList evaluates a list of strings, numbers or bools as
// text datagen parses.
func evalPrimitiveList(e hcl.Expression, ctx *hcl.EvalContext, what string) ([]string, hcl.Diagnostics) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.IsKnown() || v.IsNull() || !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, append(diags, attrErr(e, "Incorrect attribute value type", what+" must be a list."))
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		s, err := primitiveString(ev)
		if err != nil {
			return nil, append(diags, attrErr(e, "Incorrect attribute value type", what+": "+err.Error()))
		}
		out = append(out, s)
	}
	return out, diags
}

func (t *TruthBlock) resolve(ctx *hcl.EvalContext) (datagen.TruthDecl, hcl.Diagnostics) {
	td := datagen.TruthDecl{Name: t.Name}
	var diags hcl.Diagnostics
	str := func(n string) string {
		a, ok := t.Attrs[n]
		if !ok {
			return ""
		}
		s, d := evalString(a.Expr, ctx, n)
		diags = append(diags, d...)
		return s
	}
	list := func(n string) []string {
		a, ok := t.Attrs[n]
		if !ok {
			return nil
		}
		l, d := evalStringList(a.Expr, ctx, n)
		diags = append(diags, d...)
		return l
	}
	var kinds []string
	for _, k := range truthKinds {
		if _, ok := t.Attrs[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid truth",
			Detail:  fmt.Sprintf("truth %q must set exactly one of %s (it sets %v).", t.Name, strings.Join(truthKinds, ", "), kinds),
			Subject: t.DeclRange.Ptr()})
		return td, diags
	}
	kind := kinds[0]
	allowed := map[string][]string{
		"count_by": {"count_by"},
		"count":    {"count"},
		"sample":   {"sample", "n", "attrs", "inverse", "ref_attrs", "as_of", "key"},
		"changed":  {"changed", "since"},
	}[kind]
	if allowed == nil {
		allowed = []string{kind, "by"}
	}
	for n, a := range t.Attrs {
		ok := false
		for _, al := range allowed {
			ok = ok || al == n
		}
		if !ok {
			diags = append(diags, attrErr(a.Expr, "Unexpected truth attribute", fmt.Sprintf("%q does not apply to a %s truth.", n, kind)))
		}
	}
	if len(t.Where) > 0 && (kind == "sample" || kind == "changed") {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unexpected " + t.Where[0].Type + " block",
			Detail: "where and or filters apply to count, count_by, sum, avg, min and max truths.", Subject: t.Where[0].DefRange.Ptr()})
	}
	switch kind {
	case "count_by":
		td.Kind, td.Attr = datagen.TruthCountBy, str("count_by")
		td.Where = t.filters(ctx, &diags)
	case "sum", "avg", "min", "max":
		td.Kind, td.Attr, td.By = datagen.TruthKind(kind), str(kind), str("by")
		td.Where = t.filters(ctx, &diags)
	case "count":
		td.Kind, td.Entity = datagen.TruthCount, str("count")
		td.Where = t.filters(ctx, &diags)
	case "sample":
		td.Entity, td.Attrs, td.AsOf, td.Key = str("sample"), list("attrs"), str("as_of"), str("key")
		td.Kind = datagen.TruthSample
		if _, ok := t.Attrs["inverse"]; ok {
			td.Kind, td.Inverse, td.RefAttrs = datagen.TruthInverse, str("inverse"), list("ref_attrs")
		} else if a, ok := t.Attrs["ref_attrs"]; ok {
			diags = append(diags, attrErr(a.Expr, "Unexpected truth attribute", "ref_attrs needs inverse."))
		}
		td.N = 10
		if a, ok := t.Attrs["n"]; ok {
			n, d := evalInt(a.Expr, ctx, "n")
			diags = append(diags, d...)
			td.N = int(n)
		}
	case "changed":
		td.Kind, td.Attr, td.Since = datagen.TruthChangedSince, str("changed"), str("since")
		if td.Since == "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing since",
				Detail: "A changed truth needs since = \"<mark>\".", Subject: t.DeclRange.Ptr()})
		}
	}
	return td, diags
}

// filters decodes a truth's where and or blocks.
func (t *TruthBlock) filters(ctx *hcl.EvalContext, diags *hcl.Diagnostics) []datagen.Filter {
	var out []datagen.Filter
	for _, w := range t.Where {
		if w.Type == "or" {
			c, d := w.Body.Content(orSchema)
			*diags = append(*diags, d...)
			f := datagen.Filter{Op: "or"}
			for _, sub := range c.Blocks {
				if sf, ok := decodeWhere(sub, ctx, diags); ok {
					f.Any = append(f.Any, sf)
				}
			}
			if len(c.Blocks) < 2 && !d.HasErrors() {
				*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid or block",
					Detail: "An or block holds at least two where blocks, of which one must hold.", Subject: w.DefRange.Ptr()})
			}
			out = append(out, f)
			continue
		}
		if f, ok := decodeWhere(w, ctx, diags); ok {
			out = append(out, f)
		}
	}
	return out
}

func decodeWhere(w *hcl.Block, ctx *hcl.EvalContext, diags *hcl.Diagnostics) (datagen.Filter, bool) {
	c, d := w.Body.Content(whereSchema)
	*diags = append(*diags, d...)
	if d.HasErrors() {
		return datagen.Filter{}, false
	}
	f := datagen.Filter{}
	f.Attr, d = evalString(c.Attributes["attr"].Expr, ctx, "attr")
	*diags = append(*diags, d...)
	op, d := evalString(c.Attributes["op"].Expr, ctx, "op")
	*diags = append(*diags, d...)
	f.Op = whereOps[op]
	if f.Op == "" && !d.HasErrors() {
		*diags = append(*diags, attrErr(c.Attributes["op"].Expr, "Unknown operator", fmt.Sprintf("op %q: use =, !=, <, <=, >, >=, between or in.", op)))
	}
	ve := c.Attributes["value"].Expr
	if f.Op == "between" || f.Op == "in" {
		l, d := evalPrimitiveList(ve, ctx, "value")
		*diags = append(*diags, d...)
		f.Values = l
		return f, true
	}
	v, d := ve.Value(ctx)
	*diags = append(*diags, d...)
	if !d.HasErrors() {
		s, err := primitiveString(v)
		if err != nil {
			*diags = append(*diags, attrErr(ve, "Invalid filter value", err.Error()))
		}
		f.Value = s
	}
	return f, true
}

// primitiveString renders a string, number or bool as datagen parses it.
func primitiveString(v cty.Value) (string, error) {
	if v.IsNull() || !v.IsKnown() {
		return "", fmt.Errorf("the value must be known and not null")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		f := num(v)
		if f == math.Trunc(f) && math.Abs(f) < 1e18 {
			return fmt.Sprintf("%d", int64(f)), nil
		}
		return v.AsBigFloat().Text('g', -1), nil
	case cty.Bool:
		s, _ := convert.Convert(v, cty.String)
		return s.AsString(), nil
	}
	return "", fmt.Errorf("want a string, number or bool, got %s", v.Type().FriendlyName())
}
