package resolve

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/truth"
	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/hcleval"
	"github.com/mentat-spec/mentat-spec/engine/hclfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Dataset evaluates a dataset block for one scale and validates it with the
// generator. The result is Finish()ed.
func Dataset(ds *config.DatasetBlock, ctx *hcl.EvalContext) (*datagen.Dataset, hcl.Diagnostics) {
	out := &datagen.Dataset{Name: ds.Name, Seed: 1, TxSize: 500}
	// The dataset's parts first (its entities' attributes, its histories'
	// processes, its truths), then its own attributes: each block is read
	// once, top-down.
	var diags hcl.Diagnostics
	attrs := make([][]datagen.Attr, len(ds.Entities))
	for i, e := range ds.Entities {
		for _, a := range e.Attrs {
			at, d := resolveAttr(a, ctx)
			diags = append(diags, d...)
			attrs[i] = append(attrs[i], at)
		}
	}
	hists := make([]datagen.History, len(ds.History))
	for i, h := range ds.History {
		hists[i] = datagen.History{Name: h.Name, Files: 1}
		diags = append(diags, resolveProcess(h, ctx, &hists[i])...)
	}
	for _, t := range ds.Truth {
		td, d := resolveTruth(t, ctx)
		diags = append(diags, d...)
		out.Truth = append(out.Truth, td)
	}
	if ds.Seed != nil {
		n, d := hcleval.Int(ds.Seed, ctx, "seed")
		diags = append(diags, d...)
		if n < 0 {
			diags = append(diags, hcleval.AttrError(ds.Seed, "Invalid seed", "seed must not be negative."))
		}
		out.Seed = uint64(n)
	}
	if ds.TxSize != nil {
		n, d := hcleval.Int(ds.TxSize, ctx, "tx_size")
		diags = append(diags, d...)
		if !d.HasErrors() && n < 1 {
			diags = append(diags, hcleval.AttrError(ds.TxSize, "Invalid tx_size", "tx_size must be at least 1."))
		}
		out.TxSize = int(n)
	}
	for i, e := range ds.Entities {
		ent := datagen.Entity{Name: e.Name, Attrs: attrs[i]}
		if e.Parent != nil && e.PerParent != nil {
			var d hcl.Diagnostics
			ent.Parent, d = hcleval.String(e.Parent, ctx, "parent")
			diags = append(diags, d...)
			gv, d := e.PerParent.Value(ctx)
			diags = append(diags, d...)
			if !d.HasErrors() {
				g, ok := hclfunc.AsGenerator(gv)
				if !ok {
					diags = append(diags, hcleval.AttrError(e.PerParent, "Invalid per_parent", "per_parent must be uniform(min, max) or weighted({\"1\" = 3, \"2\" = 1})."))
				}
				ent.PerParent = g
			}
		}
		if e.Count != nil {
			n, d := hcleval.Int(e.Count, ctx, "count")
			diags = append(diags, d...)
			if !d.HasErrors() && n < 0 {
				diags = append(diags, hcleval.AttrError(e.Count, "Invalid count", "count must not be negative."))
			}
			ent.Count = n
		}
		out.Entities = append(out.Entities, ent)
	}
	for i, h := range ds.History {
		hist := &hists[i]
		var d hcl.Diagnostics
		hist.Entity, d = hcleval.String(h.Entity, ctx, "entity")
		diags = append(diags, d...)
		hist.Attr, d = hcleval.String(h.Attr, ctx, "attr")
		diags = append(diags, d...)
		if h.Fraction != nil {
			hist.Fraction, d = hcleval.Number(h.Fraction, ctx, "fraction")
			diags = append(diags, d...)
			if !d.HasErrors() && (hist.Fraction <= 0 || hist.Fraction > 1) {
				diags = append(diags, hcleval.AttrError(h.Fraction, "Invalid fraction", "fraction must be in (0, 1]."))
			}
		}
		if h.Files != nil {
			n, d := hcleval.Int(h.Files, ctx, "files")
			diags = append(diags, d...)
			if !d.HasErrors() && n < 1 {
				diags = append(diags, hcleval.AttrError(h.Files, "Invalid files", "files must be at least 1."))
			}
			hist.Files = int(n)
		}
		out.History = append(out.History, *hist)
	}
	for _, m := range ds.Marks {
		mk := datagen.Mark{Name: m.Name}
		var d hcl.Diagnostics
		if m.After != nil {
			mk.After, d = hcleval.String(m.After, ctx, "after")
		} else if m.BeforeLast != nil {
			mk.BeforeLast, d = hcleval.String(m.BeforeLast, ctx, "before_last")
		}
		diags = append(diags, d...)
		out.Marks = append(out.Marks, mk)
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
				Detail: fmt.Sprintf("Dataset %q: %s.", ds.Name, e), Subject: locate(ds, e).Ptr()})
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
func locate(ds *config.DatasetBlock, err error) hcl.Range {
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
			return whereRange(t, rest)
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
func whereRange(t *config.TruthBlock, rest string) hcl.Range {
	for _, w := range t.Where {
		c, _ := config.WhereContent(w)
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

func resolveAttr(a *config.AttrBlock, ctx *hcl.EvalContext) (datagen.Attr, hcl.Diagnostics) {
	at := datagen.Attr{Ident: a.Ident}
	var diags hcl.Diagnostics
	ty, d := hcleval.String(a.Type, ctx, "type")
	diags = append(diags, d...)
	if !d.HasErrors() {
		vt, ok := valueTypes[ty]
		if !ok {
			diags = append(diags, hcleval.AttrError(a.Type, "Unknown value type",
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
			v, d := hcleval.Bool(f.expr, ctx, f.name)
			diags = append(diags, d...)
			*f.dst = v
		}
	}
	gv, d := a.Gen.Value(ctx)
	diags = append(diags, d...)
	if !d.HasErrors() {
		g, ok := hclfunc.AsGenerator(gv)
		if !ok {
			diags = append(diags, hcleval.AttrError(a.Gen, "Invalid generator",
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
func resolveProcess(h *config.HistoryBlock, ctx *hcl.EvalContext, hist *datagen.History) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if h.Gen != nil {
		gv, d := h.Gen.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			g, ok := hclfunc.AsGenerator(gv)
			if !ok {
				diags = append(diags, hcleval.AttrError(h.Gen, "Invalid generator", "gen must be a generator call such as uniform(1, 5) or weighted({a = 1})."))
			}
			hist.Gen = &g
		}
	}
	if h.States != nil {
		l, d := hcleval.PrimitiveList(h.States, ctx, "states")
		diags = append(diags, d...)
		hist.States = l
	}
	if h.Fractions != nil {
		v, d := h.Fractions.Value(ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			lv, err := convert.Convert(v, cty.List(cty.Number))
			if err != nil || lv.IsNull() || !lv.IsWhollyKnown() {
				diags = append(diags, hcleval.AttrError(h.Fractions, "Incorrect attribute value type", "fractions must be a list of numbers, one per step."))
			} else {
				for _, e := range lv.AsValueSlice() {
					hist.Fractions = append(hist.Fractions, hcleval.Float(e))
				}
			}
		}
	}
	if h.Time != nil {
		var d hcl.Diagnostics
		hist.Time, d = hcleval.String(h.Time, ctx, "time")
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
					n, err := hclfunc.DurationMS(e)
					if err != nil {
						diags = append(diags, hcleval.AttrError(h.Delay, "Invalid delay", err.Error()))
						break
					}
					ms = append(ms, n)
				}
			}
			if len(ms) != 2 {
				diags = append(diags, hcleval.AttrError(h.Delay, "Invalid delay", `delay is [min, max]: milliseconds or durations such as "90m" or "2d".`))
			} else {
				hist.DelayMin, hist.DelayMax = ms[0], ms[1]
			}
		}
	}
	if h.After != nil {
		var d hcl.Diagnostics
		hist.After, d = hcleval.String(h.After, ctx, "after")
		diags = append(diags, d...)
	}
	return diags
}

func resolveTruth(t *config.TruthBlock, ctx *hcl.EvalContext) (datagen.TruthDecl, hcl.Diagnostics) {
	td := datagen.TruthDecl{Name: t.Name}
	var diags hcl.Diagnostics
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
	if kind != "sample" && kind != "changed" {
		td.Where = filters(t, ctx, &diags) // the truth's blocks before its attributes
	}
	str := func(n string) string {
		a, ok := t.Attrs[n]
		if !ok {
			return ""
		}
		s, d := hcleval.String(a.Expr, ctx, n)
		diags = append(diags, d...)
		return s
	}
	list := func(n string) []string {
		a, ok := t.Attrs[n]
		if !ok {
			return nil
		}
		l, d := hcleval.StringList(a.Expr, ctx, n)
		diags = append(diags, d...)
		return l
	}
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
			diags = append(diags, hcleval.AttrError(a.Expr, "Unexpected truth attribute", fmt.Sprintf("%q does not apply to a %s truth.", n, kind)))
		}
	}
	if len(t.Where) > 0 && (kind == "sample" || kind == "changed") {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unexpected " + t.Where[0].Type + " block",
			Detail: "where and or filters apply to count, count_by, sum, avg, min and max truths.", Subject: t.Where[0].DefRange.Ptr()})
	}
	switch kind {
	case "count_by":
		td.Kind, td.Attr = datagen.TruthCountBy, str("count_by")
	case "sum", "avg", "min", "max":
		td.Kind, td.Attr, td.By = datagen.TruthKind(kind), str(kind), str("by")
	case "count":
		td.Kind, td.Entity = datagen.TruthCount, str("count")
	case "sample":
		td.Entity, td.Attrs, td.AsOf, td.Key = str("sample"), list("attrs"), str("as_of"), str("key")
		td.Kind = datagen.TruthSample
		if _, ok := t.Attrs["inverse"]; ok {
			td.Kind, td.Inverse, td.RefAttrs = datagen.TruthInverse, str("inverse"), list("ref_attrs")
		} else if a, ok := t.Attrs["ref_attrs"]; ok {
			diags = append(diags, hcleval.AttrError(a.Expr, "Unexpected truth attribute", "ref_attrs needs inverse."))
		}
		td.N = 10
		if a, ok := t.Attrs["n"]; ok {
			n, d := hcleval.Int(a.Expr, ctx, "n")
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

// filters decodes a truth's where and or blocks: an or block's where
// blocks are decoded as a where block is, in one pass over the blocks.
func filters(t *config.TruthBlock, ctx *hcl.EvalContext, diags *hcl.Diagnostics) []datagen.Filter {
	var out []datagen.Filter
	for _, w := range t.Where {
		subs, or := []*hcl.Block{w}, w.Type == "or"
		var orErr bool
		if or {
			c, d := config.OrContent(w)
			*diags = append(*diags, d...)
			subs, orErr = c.Blocks, d.HasErrors()
		}
		var got []datagen.Filter
		for _, sub := range subs {
			c, d := config.WhereContent(sub)
			*diags = append(*diags, d...)
			if d.HasErrors() {
				continue
			}
			f := datagen.Filter{}
			f.Attr, d = hcleval.String(c.Attributes["attr"].Expr, ctx, "attr")
			*diags = append(*diags, d...)
			op, d := hcleval.String(c.Attributes["op"].Expr, ctx, "op")
			*diags = append(*diags, d...)
			f.Op = whereOps[op]
			if f.Op == "" && !d.HasErrors() {
				*diags = append(*diags, hcleval.AttrError(c.Attributes["op"].Expr, "Unknown operator", fmt.Sprintf("op %q: use =, !=, <, <=, >, >=, between or in.", op)))
			}
			ve := c.Attributes["value"].Expr
			if f.Op == "between" || f.Op == "in" {
				f.Values, d = hcleval.PrimitiveList(ve, ctx, "value")
				*diags = append(*diags, d...)
			} else if v, d := ve.Value(ctx); d.HasErrors() {
				*diags = append(*diags, d...)
			} else {
				*diags = append(*diags, d...)
				s, err := hcleval.Primitive(v)
				if err != nil {
					*diags = append(*diags, hcleval.AttrError(ve, "Invalid filter value", err.Error()))
				}
				f.Value = s
			}
			got = append(got, f)
		}
		if !or {
			out = append(out, got...)
			continue
		}
		if len(subs) < 2 && !orErr {
			*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid or block",
				Detail: "An or block holds at least two where blocks, of which one must hold.", Subject: w.DefRange.Ptr()})
		}
		out = append(out, datagen.Filter{Op: "or", Any: got})
	}
	return out
}
