package truth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen"
)

// model is what truth compilation and computation read of a finished
// dataset: its kinds and attributes by index, as datagen numbers them
// (kind k is declaration index k, attribute index i has ID i+1), with the
// compiled truth declarations.
type model struct {
	ds      *datagen.Dataset
	kinds   []kindInfo
	attrs   []attrInfo // index = attribute ID - 1
	byIdent map[string]int
	byKind  map[string]int
	marks   map[string]int64
	truth   []truthComp
}

type kindInfo struct {
	name        string
	count, base int64 // the loaded entities; the entity id of id 0
}

type attrInfo struct {
	info   datagen.AttrInfo
	kind   int
	target int // ref attributes: the kind referred to; -1 otherwise
}

type errList struct{ errs []error }

func (l *errList) add(format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf(format, args...))
}

// Check validates the truth declarations of ds, returning every problem
// together, each worded "truth %q: ...". After a Finish that failed it
// checks them over what did compile (ds.Draft), so that a definition's
// mistakes are reported together with its model's, as Finish's.
func Check(ds *datagen.Dataset) error {
	if ds.Ready() != nil {
		if ds = ds.Draft(); ds == nil {
			return nil // nothing compiled to check against
		}
	}
	_, err := compileOver(ds)
	return err
}

// compile reads ds (Finish()ed) and compiles its truth declarations.
func compile(ds *datagen.Dataset) (*model, error) {
	if err := ds.Ready(); err != nil {
		return nil, err
	}
	return compileOver(ds)
}

// compileOver compiles the truth declarations over ds's compiled model.
func compileOver(ds *datagen.Dataset) (*model, error) {
	c := &model{ds: ds, byIdent: map[string]int{}, byKind: map[string]int{}, marks: ds.MarkTxs()}
	for k, en := range ds.Entities {
		if _, dup := c.byKind[en.Name]; !dup && en.Name != "" {
			c.byKind[en.Name] = k // as Finish names kinds: the first declaration wins
		}
		c.kinds = append(c.kinds, kindInfo{name: en.Name, count: ds.Count(en.Name), base: int64(k+1) * datagen.EntityBase})
	}
	for i, a := range ds.Attrs() {
		target := -1
		if rk, ok := ds.RefKind(a.Ident); ok {
			target = c.byKind[rk]
		}
		c.byIdent[a.Ident] = i
		c.attrs = append(c.attrs, attrInfo{info: a, kind: c.byKind[a.Entity], target: target})
	}
	var el errList
	compileTruth(ds, c, &el)
	if len(el.errs) > 0 {
		return nil, errors.Join(el.errs...)
	}
	return c, nil
}

// valuesAsOf appends the values of attribute ai for id as of tx id asOf
// (< 0: current).
func (c *model) valuesAsOf(ai int, id, asOf int64, dst []datagen.Value, scratch []int64) ([]datagen.Value, []int64) {
	return c.ds.ValuesAsOf(int32(ai+1), id, asOf, dst, scratch)
}

// changedAfter reports whether attribute ai of id has a datom in a tx
// after since (its initial assert included).
func (c *model) changedAfter(ai int, id, since int64) bool {
	return c.ds.ChangedAfter(int32(ai+1), id, since)
}

type truthComp struct {
	decl     datagen.TruthDecl
	kind     int       // the kind counted, scanned or sampled
	attr     int       // changed_since: the attribute; inverse: the ref attribute
	path     pathComp  // count_by, aggregates: the attribute path
	by       *pathComp // aggregates: the grouping path
	filters  []filterComp
	attrs    []pathComp
	key      *pathComp // sample, inverse: labels each entry
	refKind  int       // inverse: the kind holding the ref attribute
	refAttrs []pathComp
	asOf     int64 // tx id; -1 = current
	since    int64
}

// pathComp is an attribute path: hops[0] belongs to kind, every hop but
// the last is a ref whose target kind holds the next.
type pathComp struct {
	name string
	kind int
	hops []int
}

func (p *pathComp) last(c *model) *attrInfo { return &c.attrs[p.hops[len(p.hops)-1]] }

type filterComp struct {
	path pathComp
	op   string
	v    datagen.Value
	vs   []datagen.Value
	any  []filterComp
}

// reservedFields are the entry keys attributes must not shadow.
var reservedFields = map[string]bool{"id": true, "e": true, "refs": true, "key": true}

// resolvePath compiles an attribute path rooted at kind k (< 0: any).
func (c *model) resolvePath(s string, k int) (pathComp, error) {
	var parts []string
	if _, whole := c.byIdent[s]; whole {
		parts = []string{s}
	} else {
		parts = strings.Split(s, datagen.PathSep)
	}
	p := pathComp{name: s, kind: k}
	for i, id := range parts {
		ai, found := c.byIdent[id]
		if !found {
			if len(parts) == 1 {
				return p, fmt.Errorf("%q is not an attribute", id)
			}
			return p, fmt.Errorf("path %q: %q is not an attribute", s, id)
		}
		a := &c.attrs[ai]
		if i == 0 {
			if k >= 0 && a.kind != k {
				return p, fmt.Errorf("%q belongs to entity %q, not %q", id, a.info.Entity, c.kinds[k].name)
			}
			p.kind = a.kind
		} else {
			prev := &c.attrs[p.hops[i-1]]
			if prev.target < 0 {
				return p, fmt.Errorf("path %q: %q is not a ref, so it cannot be followed", s, prev.info.Ident)
			}
			if a.kind != prev.target {
				return p, fmt.Errorf("path %q: %q refers to %q, which has no attribute %q", s, prev.info.Ident, c.kinds[prev.target].name, id)
			}
		}
		p.hops = append(p.hops, ai)
	}
	return p, nil
}

// pathBuf holds the scratch slices of path evaluation.
type pathBuf struct {
	ids, next []int64
	vals, out []datagen.Value
	scratch   []int64
}

// pathValues appends the values the path reaches from id (as of asOf).
func (c *model) pathValues(p *pathComp, id, asOf int64, dst []datagen.Value, b *pathBuf) []datagen.Value {
	if len(p.hops) == 1 {
		dst, b.scratch = c.valuesAsOf(p.hops[0], id, asOf, dst, b.scratch)
		return dst
	}
	b.ids = append(b.ids[:0], id)
	for i, ai := range p.hops {
		last := i == len(p.hops)-1
		b.next = b.next[:0]
		for _, x := range b.ids {
			b.vals, b.scratch = c.valuesAsOf(ai, x, asOf, b.vals[:0], b.scratch)
			if last {
				dst = append(dst, b.vals...)
				continue
			}
			base := c.kinds[c.attrs[ai].target].base
			for _, v := range b.vals {
				b.next = append(b.next, v.Int-base)
			}
		}
		b.ids, b.next = b.next, b.ids
	}
	return dst
}

// matches reports whether id satisfies every filter.
func (c *model) matches(fs []filterComp, id int64, b *pathBuf) bool {
	for i := range fs {
		if !c.match(&fs[i], id, b) {
			return false
		}
	}
	return true
}

// match: a filter on a cardinality-many attribute (or a path reaching
// several values) holds when any value satisfies it, and never for an
// attribute without a value.
func (c *model) match(f *filterComp, id int64, b *pathBuf) bool {
	if f.op == "or" {
		for i := range f.any {
			if c.match(&f.any[i], id, b) {
				return true
			}
		}
		return false
	}
	b.out = c.pathValues(&f.path, id, -1, b.out[:0], b)
	cl := f.path.last(c).info.Class
	for _, v := range b.out {
		if matchOne(cl, f, v) {
			return true
		}
	}
	return false
}

func matchOne(cl datagen.Class, f *filterComp, v datagen.Value) bool {
	switch f.op {
	case "between":
		return datagen.CompareAs(cl, v, f.vs[0]) >= 0 && datagen.CompareAs(cl, v, f.vs[1]) <= 0
	case "in":
		for _, w := range f.vs {
			if datagen.CompareAs(cl, v, w) == 0 {
				return true
			}
		}
		return false
	}
	r := datagen.CompareAs(cl, v, f.v)
	switch f.op {
	case "eq":
		return r == 0
	case "ne":
		return r != 0
	case "lt":
		return r < 0
	case "le":
		return r <= 0
	case "gt":
		return r > 0
	case "ge":
		return r >= 0
	}
	return false
}

func compileFilter(c *model, f datagen.Filter, k int) (filterComp, []string) {
	fc := filterComp{op: f.Op}
	var errs []string
	if f.Op == "or" {
		if len(f.Any) < 2 {
			errs = append(errs, "filter or: needs at least two filters")
		}
		for _, sub := range f.Any {
			sc, e := compileFilter(c, sub, k)
			fc.any = append(fc.any, sc)
			errs = append(errs, e...)
		}
		return fc, errs
	}
	p, err := c.resolvePath(f.Attr, k)
	if err != nil {
		return fc, []string{fmt.Sprintf("filter attr %s", err)}
	}
	fc.path = p
	t := p.last(c).info.Type
	parse := func(s string) datagen.Value {
		v, err := datagen.ParseValue(t, s)
		if err != nil {
			errs = append(errs, fmt.Sprintf("filter on %q: %v", f.Attr, err))
		}
		return v
	}
	switch f.Op {
	case "eq", "ne", "lt", "le", "gt", "ge":
		fc.v = parse(f.Value)
	case "between", "in":
		if f.Op == "between" && len(f.Values) != 2 {
			errs = append(errs, fmt.Sprintf("filter on %q: between needs [low, high]", f.Attr))
		}
		if f.Op == "in" && len(f.Values) == 0 {
			errs = append(errs, fmt.Sprintf("filter on %q: in needs at least one value", f.Attr))
		}
		for _, s := range f.Values {
			fc.vs = append(fc.vs, parse(s))
		}
	default:
		errs = append(errs, fmt.Sprintf("filter on %q: unknown op %q (eq ne lt le gt ge between in or)", f.Attr, f.Op))
	}
	return fc, errs
}

func compileTruth(ds *datagen.Dataset, c *model, el *errList) {
	seen := map[string]bool{}
	for _, d := range ds.Truth {
		bad := func(format string, args ...any) {
			el.add("truth %q: "+format, append([]any{d.Name}, args...)...)
		}
		if d.Name == "" {
			bad("empty name")
			continue
		}
		if d.Name == datagen.IDsKey {
			bad("the name %q is reserved for the id sets of counting truths", datagen.IDsKey)
			continue
		}
		if seen[d.Name] {
			bad("declared twice")
			continue
		}
		seen[d.Name] = true
		tc := truthComp{decl: d, asOf: -1}
		ok := true
		entity := func() bool {
			k, found := c.byKind[d.Entity]
			if !found {
				bad("entity %q is not an entity", d.Entity)
				return false
			}
			tc.kind = k
			return true
		}
		attrOf := func(ident string, k int, what string) (int, bool) {
			ai, found := c.byIdent[ident]
			if !found {
				bad("%s %q is not an attribute", what, ident)
				return 0, false
			}
			if k >= 0 && c.attrs[ai].kind != k {
				bad("%s %q belongs to entity %q, not %q", what, ident, c.attrs[ai].info.Entity, c.kinds[k].name)
				return 0, false
			}
			return ai, true
		}
		path := func(s string, k int, what string) (pathComp, bool) {
			p, err := c.resolvePath(s, k)
			if err != nil {
				bad("%s %v", what, err)
				ok = false
				return p, false
			}
			return p, true
		}
		attrList := func(idents []string, k int, what string) []pathComp {
			var out []pathComp
			for _, id := range idents {
				if reservedFields[id] {
					bad("%s %q clashes with a reserved key", what, id)
					ok = false
					continue
				}
				if p, found := path(id, k, what); found {
					out = append(out, p)
				}
			}
			return out
		}
		mark := func(name, what string) int64 {
			tx, found := c.marks[name]
			if !found {
				bad("%s %q is not a mark", what, name)
				ok = false
			}
			return tx
		}
		filters := func() {
			for _, f := range d.Where {
				fc, errs := compileFilter(c, f, tc.kind)
				for _, e := range errs {
					bad("%s", e)
					ok = false
				}
				tc.filters = append(tc.filters, fc)
			}
		}
		samples := func() {
			if !entity() {
				ok = false
				return
			}
			if n := c.kinds[tc.kind].count; d.N < 1 || int64(d.N) > n {
				bad("n %d must be in [1, %d] (the %q count)", d.N, n, d.Entity)
				ok = false
			}
			tc.attrs = attrList(d.Attrs, tc.kind, "attr")
			if d.AsOf != "" {
				tc.asOf = mark(d.AsOf, "as_of")
			}
			if d.Key != "" {
				if p, found := path(d.Key, tc.kind, "key"); found {
					tc.key = &p
				}
			} else {
				for _, p := range tc.attrs {
					if len(p.hops) == 1 && c.attrs[p.hops[0]].info.Unique {
						tc.key = &p
						break
					}
				}
			}
		}
		switch d.Kind {
		case datagen.TruthCountBy, datagen.TruthSum, datagen.TruthAvg, datagen.TruthMin, datagen.TruthMax:
			p, found := path(d.Attr, -1, "attr")
			if !found {
				break
			}
			tc.path, tc.kind = p, p.kind
			if d.Entity != "" && d.Entity != c.kinds[p.kind].name {
				bad("attr %q belongs to entity %q, not %q", d.Attr, c.kinds[p.kind].name, d.Entity)
				ok = false
			}
			if d.Kind != datagen.TruthCountBy {
				if cl := p.last(c).info.Class; cl == datagen.ClassText || p.last(c).info.Type == datagen.TypeRef || p.last(c).info.Type == datagen.TypeBoolean {
					bad("attr %q is a %s: %s needs a long, double or instant", d.Attr, p.last(c).info.Type, d.Kind)
					ok = false
				}
			}
			if d.By != "" {
				if d.Kind == datagen.TruthCountBy {
					bad("by applies to sum, avg, min and max; count_by groups by its own attribute")
					ok = false
				} else if bp, found := path(d.By, p.kind, "by"); found {
					tc.by = &bp
				}
			}
			filters()
		case datagen.TruthCount:
			if !entity() {
				ok = false
				break
			}
			filters()
		case datagen.TruthSample:
			samples()
		case datagen.TruthInverse:
			samples()
			ai, found := attrOf(d.Inverse, -1, "inverse")
			if !found {
				ok = false
				break
			}
			a := &c.attrs[ai]
			switch {
			case a.info.Type != datagen.TypeRef:
				bad("inverse %q is not a ref attribute", d.Inverse)
				ok = false
			case a.target < 0 || c.kinds[a.target].name != d.Entity:
				target := a.info.Gen.Target
				if a.target >= 0 {
					target = c.kinds[a.target].name
				}
				bad("inverse %q points at %q, not %q", d.Inverse, target, d.Entity)
				ok = false
			}
			tc.attr, tc.refKind = ai, a.kind
			tc.refAttrs = attrList(d.RefAttrs, a.kind, "ref attr")
		case datagen.TruthChangedSince:
			ai, found := attrOf(d.Attr, -1, "attr")
			if !found {
				ok = false
			}
			tc.attr = ai
			if found {
				tc.kind = c.attrs[ai].kind
			}
			tc.since = mark(d.Since, "since")
		default:
			bad("unknown kind %q", d.Kind)
			ok = false
		}
		if ok {
			c.truth = append(c.truth, tc)
		}
	}
}
