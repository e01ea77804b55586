package truth

import (
	"github.com/mentat-spec/mentat-spec/datagen"
	"github.com/mentat-spec/mentat-spec/datagen/writes"
)

// How a truth reads the written attribute.
const (
	touchNone    = iota // not at all
	touchShallow        // directly (a one-hop path): the truth can follow the writes
	touchDeep           // through a ref path, or as a key: it cannot
)

func pathTouch(p *pathComp, ai int) int {
	for i, h := range p.hops {
		if h == ai {
			if len(p.hops) == 1 && i == 0 {
				return touchShallow
			}
			return touchDeep
		}
	}
	return touchNone
}

func filtersTouch(fs []filterComp, ai int) int {
	t := touchNone
	for i := range fs {
		f := &fs[i]
		var ft int
		if f.op == "or" {
			ft = filtersTouch(f.any, ai)
		} else {
			ft = pathTouch(&f.path, ai)
		}
		t = max(t, ft)
	}
	return t
}

// touches says how truth tc reads the attributes update g writes.
func (g *gen) touches(tc *truthComp) int {
	t := touchNone
	for _, ai := range g.attrs {
		t = max(t, touchesAttr(tc, ai))
	}
	return t
}

// touchesAttr says how truth tc reads attribute ai.
func touchesAttr(tc *truthComp, ai int) int {
	t := filtersTouch(tc.filters, ai)
	switch tc.decl.Kind {
	case datagen.TruthCountBy, datagen.TruthSum, datagen.TruthAvg, datagen.TruthMin, datagen.TruthMax:
		t = max(t, pathTouch(&tc.path, ai))
		if tc.by != nil {
			t = max(t, pathTouch(tc.by, ai))
		}
		if tc.decl.Kind != datagen.TruthCountBy && t != touchNone {
			t = touchDeep
		}
	case datagen.TruthSample, datagen.TruthInverse:
		for _, ps := range [][]pathComp{tc.attrs, tc.refAttrs} {
			for i := range ps {
				t = max(t, pathTouch(&ps[i], ai))
			}
		}
		if tc.key != nil && pathTouch(tc.key, ai) != touchNone {
			t = touchDeep
		}
		if tc.decl.Kind == datagen.TruthInverse && tc.attr == ai {
			t = touchDeep
		}
	case datagen.TruthCount:
		// its filters, above
	case datagen.TruthChangedSince:
		if tc.attr == ai {
			t = max(t, touchShallow)
		}
	}
	return t
}

// insertTouches says how truth tc follows inserts of g's kind: not at all
// (touchNone), exactly (touchShallow), or not (touchDeep). An inserted
// entity refers only to loaded ones, so only truths over its own kind,
// and inverse truths whose refs it may join, change.
func insertTouches(c *model, g *gen, tc *truthComp) int {
	switch tc.decl.Kind {
	case datagen.TruthCount, datagen.TruthCountBy, datagen.TruthMin, datagen.TruthMax:
		if tc.kind == g.kind {
			return touchShallow
		}
	case datagen.TruthSum:
		if tc.kind == g.kind {
			if tc.path.last(c).info.Class == datagen.ClassReal {
				return touchDeep // a double sum depends on the order of its terms
			}
			return touchShallow
		}
	case datagen.TruthAvg:
		if tc.kind == g.kind {
			return touchDeep // the base truth keeps the mean, not the count
		}
	case datagen.TruthChangedSince:
		if tc.kind == g.kind {
			return touchShallow
		}
	case datagen.TruthInverse:
		if tc.refKind == g.kind {
			return touchShallow
		}
	}
	return touchNone
}

// goesStale reports whether writes of g make truth tc unknowable, and how
// they touch it otherwise.
func goesStale(c *model, g *gen, tc *truthComp) (bool, int) {
	if tc.asOf >= 0 && (tc.decl.Kind == datagen.TruthSample || tc.decl.Kind == datagen.TruthInverse) {
		return false, touchNone // as of a mark before the writes: unchanged
	}
	if g.insert {
		t := insertTouches(c, g, tc)
		return t == touchDeep, t
	}
	t := g.touches(tc)
	if t == touchDeep && g.add && sumFollows(tc, g.attrs) {
		t = touchShallow
	}
	if t == touchDeep {
		return true, t
	}
	if t == touchShallow && tc.decl.Kind == datagen.TruthCountBy {
		for _, ai := range g.attrs {
			if filtersTouch(tc.filters, ai) != touchNone {
				return true, t
			}
		}
	}
	return false, t
}

// Stale lists the truth declarations that writes of generator name make
// impossible to follow (a check reading them cannot be resolved after the
// writes), without running any write. The truths several generators make
// unknowable together are the union of each one's. A dataset whose truth
// declarations do not compile has none to list.
func Stale(w *writes.Writes, name string) []string {
	c, err := compile(w.Dataset())
	if err != nil {
		return nil
	}
	g, ok := genOf(c, w, name)
	if !ok {
		return nil
	}
	var out []string
	for i := range c.truth {
		tc := &c.truth[i]
		for _, p := range g.parts() {
			if st, _ := goesStale(c, p, tc); st {
				out = append(out, tc.decl.Name)
				break
			}
		}
	}
	return out
}

// sumFollows says whether additions to attrs leave a sum truth exact: an
// integer sum over one of them, read directly, grouped and filtered by
// attributes they do not touch, moves by exactly the deltas.
func sumFollows(tc *truthComp, attrs []int) bool {
	if tc.decl.Kind != datagen.TruthSum || len(tc.path.hops) != 1 {
		return false
	}
	for _, ai := range attrs {
		if filtersTouch(tc.filters, ai) != touchNone || tc.by != nil && pathTouch(tc.by, ai) != touchNone {
			return false
		}
	}
	return true
}

// parts is g's steps when it is a transaction, else g itself: the truth
// follows each step as it would a write of its own.
func (g *gen) parts() []*gen {
	if len(g.steps) > 0 {
		return g.steps
	}
	return []*gen{g}
}

// gen is what a truth reads of one write generator.
type gen struct {
	name   string
	entity string
	insert bool
	kind   int   // the kind it writes
	attrs  []int // update: the attributes it may write
	add    bool  // update: adds deltas
	steps  []*gen
}

func genOf(c *model, w *writes.Writes, name string) (*gen, bool) {
	d, ok := w.Decl(name)
	if !ok {
		return nil, false
	}
	g := &gen{name: name, entity: d.Entity, insert: d.Insert, kind: c.byKind[d.Entity], add: w.Additive(name)}
	for _, st := range w.Steps(name) {
		p := &gen{name: name, entity: st.Entity, insert: st.Insert, kind: c.byKind[st.Entity], add: st.Add}
		if !st.Insert {
			p.attrs = []int{int(st.Attr.ID) - 1}
		}
		g.steps = append(g.steps, p)
	}
	for _, a := range w.Attrs(name) {
		g.attrs = append(g.attrs, int(a.ID)-1)
	}
	return g, true
}

// replaceFields copies a []Entry truth with field ident of the entities in
// final replaced (in the refs of each entry when refs is set).
func replaceFields(v any, ident string, final map[int64]datagen.Value, refs bool) any {
	entries, ok := v.([]Entry)
	if !ok {
		return v
	}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		if refs {
			e.Refs = replaceFields(e.Refs, ident, final, false).([]Entry)
		} else if nv, ok := final[e.ID]; ok {
			f := make(map[string]any, len(e.Fields))
			for k, x := range e.Fields {
				f[k] = x
			}
			f[ident] = nv.Any()
			e.Fields = f
		}
		out[i] = e
	}
	return out
}
