package datagen

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mentat-spec/mentat-spec/datagen/internal/draw"
)

const (
	// EntityBase spaces entity kinds: kind k (0-based, declaration order)
	// has entity ids (k+1)*EntityBase + id.
	EntityBase int64 = 1_000_000_000_000
	// TxBase is the id of transaction index 0: tx id = TxBase + index.
	TxBase int64 = 1_000_000_000_000_000

	maxKinds    = int(TxBase/EntityBase) - 1 // entity ids stay below TxBase
	maxFiles    = 1_000_000                  // keeps file-boundary arithmetic in int64
	maxVersions = 1 << 16                    // versions share a draw word with the retry number
)

// AttrInfo is an attribute with the entity kind that owns it.
type AttrInfo struct {
	Attr
	Entity string
	Class  Class
}

// compiled is everything Finish derives from a Dataset; read-only after.
type compiled struct {
	kinds      []kindComp
	attrs      []attrComp // index = attribute ID - 1
	byIdent    map[string]int
	byKind     map[string]int
	hists      []histComp
	phases     []Phase
	txCount    int64
	initialEnd int64 // tx index after the initial phase
	marks      map[string]int64
	txSize     int64
	laidOut    bool
	phaseHist  []int // phase index -> history index (-1: initial)
}

type kindComp struct {
	name    string
	count   int64
	base    int64 // entity id of id 0
	attrs   []int
	txStart int64 // tx index of the kind's first initial tx
	fam     *family
	// noInsert says why a write cannot insert entities of the kind ("":
	// it can, and ids from count on have generated values).
	noInsert string
}

type attrComp struct {
	info     AttrInfo
	kind     int
	pos      int // position in its entity's Attrs
	gen      genComp
	hists    []int // changes of this attribute (as its attr or its time), in order
	ednIdent string
	target   int // ref attributes: the kind referred to; -1 otherwise
}

type histMode int

const (
	histRedraw histMode = iota // a new draw of the attribute's generator
	histGen                    // a draw of the history's own generator
	histStep                   // one step of a process: from -> to
)

// histComp is one history, or one step of a process history.
type histComp struct {
	name     string
	kind     int
	attr     int
	frac     float64
	files    int
	n        int64   // entity count
	fileTx   []int64 // tx index where each file starts; fileTx[files] is the end
	sel      draw.Stream
	mode     histMode
	step     int // process step number (its selection draw)
	from, to Value
	gen      genComp // histGen
	time     int     // the instant attribute each change advances; -1: none
	dmin     int64
	dspan    uint64
	fileBase int // file number of its first file (steps number theirs on)
}

// Finish validates the dataset, assigns attribute IDs (1..N in declaration
// order) and compiles generators and the transaction layout. It must be
// called before any other method and again after the definition changes,
// never concurrently with other methods. All problems found are returned
// together.
func (ds *Dataset) Finish() error {
	c, err := compile(ds)
	if err != nil {
		if ds != nil {
			ds.c = nil // never keep serving a definition that no longer validates
			ds.draft = c
		}
		return err
	}
	ds.draft = nil
	for i := range c.attrs {
		a := &c.attrs[i]
		ds.Entities[a.kind].Attrs[a.pos].ID = a.info.ID
	}
	ds.c = c
	return nil
}

// Draft is the dataset as far as a Finish that failed compiled it (nil
// after a Finish that succeeded, or none), so that declarations over the
// model (truths) can be checked, and their mistakes reported with the
// model's. Its lookups (Attrs, Count, EntityID, RefKind, MarkTxs) answer
// from what did compile; nothing may be generated from it.
func (ds *Dataset) Draft() *Dataset {
	if ds == nil || ds.draft == nil {
		return nil
	}
	d := *ds
	d.c, d.draft = ds.draft, nil
	return &d
}

func (ds *Dataset) compiled() (*compiled, error) {
	if ds == nil || ds.c == nil {
		return nil, errors.New("datagen: dataset not finished (call Finish first)")
	}
	return ds.c, nil
}

type errList struct{ errs []error }

func (l *errList) add(format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf(format, args...))
}

func compile(ds *Dataset) (*compiled, error) {
	if ds == nil {
		return nil, errors.New("datagen: nil dataset")
	}
	var el errList
	c := &compiled{
		byIdent: map[string]int{},
		byKind:  map[string]int{},
		marks:   map[string]int64{},
		txSize:  int64(ds.TxSize),
	}
	if ds.TxSize < 1 {
		el.add("tx_size %d: must be at least 1", ds.TxSize)
	}
	if len(ds.Entities) > maxKinds {
		el.add("%d entity kinds: at most %d", len(ds.Entities), maxKinds)
	}
	// Pass 1: names, counts, attribute identities.
	for k, en := range ds.Entities {
		_, dup := c.byKind[en.Name]
		switch {
		case en.Name == "":
			el.add("entity #%d: empty name", k+1)
		case dup:
			el.add("entity %q: declared twice", en.Name)
		default:
			c.byKind[en.Name] = k
		}
		kc := kindComp{name: en.Name, count: max(en.Count, 0), base: int64(k+1) * EntityBase}
		if en.Parent != "" {
			kc.fam, kc.count = compileFamily(ds, c, en, &el)
		}
		if en.Count < 0 || kc.count >= EntityBase {
			el.add("entity %q: count %d out of range [0, %d)", en.Name, min(en.Count, kc.count), EntityBase)
		}
		for pos, a := range en.Attrs {
			if a.Ident == "" {
				el.add("entity %q: attribute with empty ident", en.Name)
				continue
			}
			if prev, dup := c.byIdent[a.Ident]; dup {
				el.add("entity %q attr %q: ident already declared by entity %q", en.Name, a.Ident, c.attrs[prev].info.Entity)
				continue
			}
			cl, ok := a.Type.Class()
			if !ok {
				el.add("entity %q attr %q: unknown value type %q", en.Name, a.Ident, a.Type)
			}
			info := AttrInfo{Attr: a, Entity: en.Name, Class: cl}
			info.ID = int32(len(c.attrs) + 1)
			c.byIdent[a.Ident] = len(c.attrs)
			kc.attrs = append(kc.attrs, len(c.attrs))
			c.attrs = append(c.attrs, attrComp{info: info, kind: k, pos: pos, ednIdent: ":" + a.Ident})
		}
		c.kinds = append(c.kinds, kc)
	}
	// Pass 2: generators (targets are known now).
	for i := range c.attrs {
		compileGen(ds, c, &c.attrs[i], &el)
	}
	compileHistories(ds, c, &el)
	if len(el.errs) == 0 {
		layout(c)
	}
	compileMarks(ds, c, &el)
	if len(el.errs) > 0 {
		return c, errors.Join(el.errs...) // c: the draft, for Draft
	}
	for k := range c.kinds {
		c.kinds[k].noInsert = insertProblem(c, k)
	}
	return c, nil
}

// insertProblem says why new entities of kind k (ids from its count on)
// could not be generated like the loaded ones, or "" when they can:
// children are numbered by parent and a parent's children by its id, so
// neither kind can grow; a unique attribute stays unique only as a seq of
// the id; a ref needs a target to draw from.
func insertProblem(c *compiled, k int) string {
	kc := &c.kinds[k]
	if kc.fam != nil {
		return fmt.Sprintf("entity %q has a parent (%q)", kc.name, c.kinds[kc.fam.parent].name)
	}
	for i := range c.kinds {
		if f := c.kinds[i].fam; f != nil && f.parent == k {
			return fmt.Sprintf("entity %q is the parent of %q", kc.name, c.kinds[i].name)
		}
	}
	for _, ai := range kc.attrs {
		a := &c.attrs[ai]
		g := &a.gen
		switch {
		case a.info.Unique && g.kind != GenSeq:
			return fmt.Sprintf("unique attr %q is not a seq()", a.info.Ident)
		case (IsKeyChooser(g.kind) || g.kind == GenSample) && g.tcount < 1:
			return fmt.Sprintf("attr %q draws from %q, which has no entities", a.info.Ident, a.info.Gen.Target)
		case g.kind == GenSample && int64(g.maxN) > g.tcount:
			return fmt.Sprintf("attr %q samples up to %d of %d entities", a.info.Ident, g.maxN, g.tcount)
		}
	}
	return ""
}

func compileGen(ds *Dataset, c *compiled, a *attrComp, el *errList) {
	en := &c.kinds[a.kind]
	g := a.info.Gen
	t := a.info.Type
	bad := func(format string, args ...any) {
		el.add("entity %q attr %q: "+format, append([]any{en.name, a.info.Ident}, args...)...)
	}
	gc := genComp{kind: g.Kind, typ: t, class: a.info.Class, s: draw.NewStream(ds.Seed, en.name, a.info.Ident)}
	a.target = -1
	defer func() {
		if k, ok := c.byKind[g.Target]; ok && t == TypeRef && g.Kind != GenParent {
			a.target = k
		}
	}()
	needType := func(ok bool, want string) bool {
		if !ok {
			bad("%s generator needs type %s, not %q", g.Kind, want, t)
		}
		return ok
	}
	target := func() bool {
		k, ok := c.byKind[g.Target]
		if !ok {
			bad("%s target %q is not an entity", g.Kind, g.Target)
			return false
		}
		gc.tbase = c.kinds[k].base
		gc.tcount = c.kinds[k].count
		if gc.tcount < 1 && en.count > 0 {
			bad("%s target %q has no entities", g.Kind, g.Target)
			return false
		}
		return true
	}
	if a.info.Many != (g.Kind == GenSample) {
		if a.info.Many {
			bad("cardinality many needs a sample generator, not %q", g.Kind)
		} else {
			bad("sample generator needs cardinality many")
		}
	}
	if a.info.Unique && g.Kind != GenSeq {
		bad("unique attribute needs a seq generator, not %q", g.Kind)
	}
	switch g.Kind {
	case GenSeq:
		if needType(t == TypeString || t == TypeKeyword, "string or keyword") {
			p, s, pad, err := splitSeqFormat(g.Format)
			if err != nil {
				bad("seq format %q: %v", g.Format, err)
			}
			gc.prefix, gc.suffix, gc.pad = p, s, pad
		}
	case GenParent, GenOrdinal:
		if g.Kind == GenParent {
			needType(t == TypeRef, "ref")
		} else {
			needType(t == TypeLong, "long")
		}
		if en.fam == nil {
			bad("%s() needs an entity with a parent", g.Kind)
			break
		}
		gc.fam = en.fam
		gc.tbase = c.kinds[en.fam.parent].base
		gc.tcount = en.fam.parentCount
		if g.Kind == GenParent {
			defer func() { a.target = en.fam.parent }()
		}
	case GenOffset:
		needType(t == TypeLong || t == TypeInstant, "long or instant")
		si, ok := c.byIdent[g.Source]
		switch {
		case !ok || c.attrs[si].kind != a.kind:
			bad("offset source %q is not an attribute of entity %q", g.Source, en.name)
		case c.attrs[si].info.Many || (c.attrs[si].info.Type != TypeLong && c.attrs[si].info.Type != TypeInstant):
			bad("offset source %q must be a cardinality-one long or instant", g.Source)
		case c.attrs[si].info.Gen.Kind == GenOffset:
			bad("offset source %q is itself an offset", g.Source)
		default:
			gc.src = &c.attrs[si].gen
		}
		if g.Min > g.Max {
			bad("offset range [%d, %d] is empty", g.Min, g.Max)
		}
		gc.min = g.Min
		gc.span = uint64(g.Max) - uint64(g.Min) + 1
	case GenUniformInt, GenInstant:
		if g.Kind == GenUniformInt {
			needType(t == TypeLong || t == TypeInstant, "long or instant")
		} else {
			needType(t == TypeInstant, "instant")
		}
		if g.Min > g.Max {
			bad("%s range [%d, %d] is empty", g.Kind, g.Min, g.Max)
		}
		gc.min = g.Min
		gc.span = uint64(g.Max) - uint64(g.Min) + 1
	case GenUniformFloat:
		needType(t == TypeDouble, "double")
		w := g.FMax - g.FMin
		if !(g.FMin <= g.FMax) || math.IsInf(w, 0) || math.IsNaN(w) {
			bad("uniform_float range [%g, %g) is not a finite range", g.FMin, g.FMax)
		}
		gc.fmin, gc.fmax, gc.fwidth = g.FMin, g.FMax, w
	case GenWeighted:
		if !needType(t != TypeRef, "other than ref") {
			break
		}
		if len(g.Choices) == 0 || len(g.Choices) != len(g.Weights) {
			bad("weighted needs as many weights as choices (at least one), got %d choices and %d weights", len(g.Choices), len(g.Weights))
			break
		}
		total := 0.0
		for i, ch := range g.Choices {
			w := g.Weights[i]
			if !(w >= 0) || math.IsInf(w, 0) {
				bad("weighted choice %q: weight %g must be finite and >= 0", ch, w)
			}
			v, err := ParseValue(t, ch)
			if err != nil {
				bad("weighted choice: %v", err)
			}
			gc.choices = append(gc.choices, v)
			total += w
			gc.cum = append(gc.cum, total)
			if w > 0 {
				gc.last = i
			}
		}
		if !(total > 0) || math.IsInf(total, 0) {
			bad("weighted weights must have a positive finite sum")
		}
	case GenRandomBytes:
		needType(t == TypeString || t == TypeKeyword, "string or keyword")
		if g.Length < 1 || g.Length > maxRandomBytes {
			bad("random_bytes length %d must be in [1, %d]", g.Length, maxRandomBytes)
		}
		gc.length = g.Length
	case GenSample:
		needType(t == TypeRef, "ref")
		if g.MinN < 0 || g.MinN > g.MaxN {
			bad("sample size range [%d, %d] is invalid", g.MinN, g.MaxN)
		} else if target() && int64(g.MaxN) > gc.tcount && en.count > 0 {
			bad("sample of up to %d distinct %q entities, but there are only %d", g.MaxN, g.Target, gc.tcount)
		}
		gc.minN, gc.maxN = g.MinN, g.MaxN
	case GenConst:
		if !needType(t != TypeRef, "other than ref") {
			break
		}
		v, err := ParseValue(t, g.Const)
		if err != nil {
			bad("const: %v", err)
		}
		gc.cval = v
	case GenChance:
		needType(t == TypeBoolean, "boolean")
		if !(g.P >= 0 && g.P <= 1) {
			bad("chance probability %g must be in [0, 1]", g.P)
		}
		gc.p = g.P
	default:
		if !IsKeyChooser(g.Kind) {
			bad("unknown generator %q", g.Kind)
			break
		}
		// A key chooser of the table (choosers.go): one entity of Target.
		needType(t == TypeRef, "ref")
		target()
		if err := gc.keys.init(g, scrambleKey(ds.Seed, g.Target), gc.tcount); err != nil {
			bad("%v", err)
		}
	}
	gc.fill = fillOf(g.Kind)
	a.gen = gc
}

// splitSeqFormat splits a seq format around its single %d or %0Nd (zero
// padding to N digits); "%%" is a literal percent sign.
func splitSeqFormat(f string) (prefix, suffix string, pad int, err error) {
	var b strings.Builder
	found := false
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 >= len(f) {
			return "", "", 0, errors.New("trailing %")
		}
		i++
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		w := 0
		if f[i] == '0' {
			for i+1 < len(f) && f[i+1] >= '0' && f[i+1] <= '9' {
				i++
				w = w*10 + int(f[i]-'0')
				if w > 20 {
					return "", "", 0, errors.New("padding wider than 20 digits")
				}
			}
			i++
			if i >= len(f) || w == 0 {
				return "", "", 0, errors.New("%0 needs a width and d, as in %06d")
			}
		}
		if f[i] != 'd' {
			return "", "", 0, fmt.Errorf("unsupported verb %%%c (only one %%d or %%0Nd)", f[i])
		}
		if found {
			return "", "", 0, errors.New("more than one %d")
		}
		found, pad = true, w
		prefix = b.String()
		b.Reset()
	}
	if !found {
		return "", "", 0, errors.New("needs exactly one %d")
	}
	return prefix, b.String(), pad, nil
}

// canVary reports whether a generator can give a value different from
// any other, so a history change is a real change.
func canVary(g *genComp) bool {
	if IsKeyChooser(g.kind) {
		return g.tcount >= 2
	}
	switch g.kind {
	case GenUniformInt, GenInstant:
		return g.span != 1
	case GenUniformFloat:
		return g.fwidth > 0
	case GenWeighted:
		var first *Value
		for i := range g.choices {
			w := g.cum[i]
			if i > 0 {
				w -= g.cum[i-1]
			}
			if w <= 0 {
				continue
			}
			if first == nil {
				first = &g.choices[i]
			} else if !first.Equal(g.choices[i]) {
				return true
			}
		}
		return false
	case GenRandomBytes:
		return g.length > 0
	case GenChance:
		return g.p > 0 && g.p < 1
	}
	return false
}

func compileHistories(ds *Dataset, c *compiled, el *errList) {
	seen := map[string]bool{}
	for _, h := range ds.History {
		bad := func(format string, args ...any) {
			el.add("history %q: "+format, append([]any{h.Name}, args...)...)
		}
		switch {
		case h.Name == "" || h.Name == "initial":
			bad("invalid name (empty or reserved)")
		case seen[h.Name]:
			bad("declared twice")
		}
		if h.After != "" && !seen[h.After] {
			bad("after %q is not a history declared before it", h.After)
		}
		seen[h.Name] = true
		base := histComp{name: h.Name, frac: h.Fraction, files: h.Files, sel: draw.NewStream(ds.Seed, "history", h.Name), time: -1}
		ok := true
		k, found := c.byKind[h.Entity]
		if !found {
			bad("entity %q is not an entity", h.Entity)
			ok = false
		}
		attrOf := func(what, ident string) (int, bool) {
			ai, found := c.byIdent[ident]
			switch {
			case !found:
				bad("%s %q is not an attribute", what, ident)
			case ok && c.attrs[ai].kind != k:
				bad("%s %q belongs to entity %q, not %q", what, ident, c.attrs[ai].info.Entity, h.Entity)
			default:
				return ai, true
			}
			return 0, false
		}
		ai, found := attrOf("attr", h.Attr)
		ok = ok && found
		steps := []histComp{}
		if ok {
			a := &c.attrs[ai]
			base.kind, base.attr, base.n = k, ai, c.kinds[k].count
			switch {
			case a.info.Many:
				bad("attr %q has cardinality many; history changes cardinality-one attributes", h.Attr)
				ok = false
			case len(h.States) > 0:
				steps = processSteps(h, a, base, bad)
			case h.Gen != nil:
				base.mode = histGen
				tmp := attrComp{info: a.info, kind: a.kind}
				tmp.info.Gen = *h.Gen
				tmp.info.Unique = false
				var gl errList
				compileGen(ds, c, &tmp, &gl)
				for _, e := range gl.errs {
					bad("gen: %v", e)
				}
				tmp.gen.s = draw.NewStream(ds.Seed, h.Entity, h.Attr+"@"+h.Name)
				base.gen = tmp.gen
				if len(gl.errs) == 0 && !genChanges(&base.gen) {
					bad("gen can only give one value, so it cannot change attr %q", h.Attr)
				}
				steps = append(steps, base)
			case a.gen.kind == GenSeq || a.gen.kind == GenConst || a.gen.kind == GenParent || a.gen.kind == GenOrdinal:
				bad("attr %q uses a %s generator, which cannot give a new value (set gen or states)", h.Attr, a.gen.kind)
			case !canVary(&a.gen):
				bad("attr %q can only take one value, so it cannot change", h.Attr)
			default:
				steps = append(steps, base)
			}
			if len(h.States) == 0 && !(h.Fraction > 0 && h.Fraction <= 1) {
				bad("fraction %g must be in (0, 1]", h.Fraction)
			}
		}
		touched := []int{}
		if ok {
			touched = append(touched, ai)
		}
		if h.Time != "" {
			if ti, found := attrOf("time", h.Time); found {
				t := &c.attrs[ti]
				switch {
				case t.info.Type != TypeInstant || t.info.Many:
					bad("time %q must be a cardinality-one instant", h.Time)
				case ti == ai:
					bad("time %q is the attribute the history changes", h.Time)
				default:
					touched = append(touched, ti)
					for i := range steps {
						steps[i].time = ti
					}
				}
			}
			if h.DelayMin < 0 || h.DelayMin > h.DelayMax {
				bad("delay [%d, %d] ms must be a range of whole milliseconds >= 0", h.DelayMin, h.DelayMax)
			}
			for i := range steps {
				steps[i].dmin, steps[i].dspan = h.DelayMin, uint64(h.DelayMax-h.DelayMin)+1
			}
		}
		for _, ti := range touched {
			t := &c.attrs[ti]
			if len(t.hists) > 0 && h.After == "" {
				bad("attr %q is also changed by history %q: set after = %q to order them", t.info.Ident, c.hists[t.hists[len(t.hists)-1]].name, c.hists[t.hists[len(t.hists)-1]].name)
			}
			if len(t.hists)+len(steps) >= maxVersions {
				bad("attr %q has more than %d changes", t.info.Ident, maxVersions-1)
			}
		}
		if h.Files < 1 || h.Files > maxFiles {
			bad("files %d must be in [1, %d]", h.Files, maxFiles)
		}
		for i := range steps {
			for _, ti := range touched {
				c.attrs[ti].hists = append(c.attrs[ti].hists, len(c.hists))
			}
			c.hists = append(c.hists, steps[i])
		}
	}
}

// processSteps expands a process history into one step per transition.
func processSteps(h History, a *attrComp, base histComp, bad func(string, ...any)) []histComp {
	if len(h.States) < 2 {
		bad("states needs at least two states")
		return nil
	}
	if len(h.Fractions) != len(h.States)-1 {
		bad("fractions needs one fraction per step (%d), got %d", len(h.States)-1, len(h.Fractions))
		return nil
	}
	vals := make([]Value, len(h.States))
	for i, st := range h.States {
		v, err := ParseValue(a.info.Type, st)
		if err != nil {
			bad("states: %v", err)
			return nil
		}
		vals[i] = v
	}
	var out []histComp
	for j, f := range h.Fractions {
		if !(f > 0 && f <= 1) {
			bad("fractions: step %d fraction %g must be in (0, 1]", j+1, f)
		}
		if vals[j].Equal(vals[j+1]) {
			bad("states: step %d goes from %q to itself", j+1, h.States[j])
		}
		st := base
		st.mode, st.step, st.frac = histStep, j, f
		st.from, st.to = vals[j], vals[j+1]
		st.fileBase = j * max(h.Files, 1)
		out = append(out, st)
	}
	return out
}

// genChanges reports whether a history's own generator can give more
// than one value.
func genChanges(g *genComp) bool {
	switch g.kind {
	case GenSeq, GenConst, GenParent, GenOrdinal, GenSample:
		return false
	case GenOffset:
		return g.span != 1
	}
	return canVary(g)
}

// compileFamily checks a dependent entity and indexes its parents'
// child counts: one prefix sum per famBlock parents.
func compileFamily(ds *Dataset, c *compiled, en Entity, el *errList) (*family, int64) {
	bad := func(format string, args ...any) {
		el.add("entity %q: "+format, append([]any{en.Name}, args...)...)
	}
	pk, ok := c.byKind[en.Parent]
	if !ok {
		bad("parent %q is not an entity declared before it", en.Parent)
		return nil, 0
	}
	g := en.PerParent
	f := &family{parent: pk, parentCount: c.kinds[pk].count}
	f.per = genComp{kind: g.Kind, typ: TypeLong, class: ClassInt, s: draw.NewStream(ds.Seed, "children", en.Name)}
	switch g.Kind {
	case GenUniformInt:
		if g.Min < 0 || g.Min > g.Max {
			bad("per_parent range [%d, %d] must be whole numbers 0 <= min <= max", g.Min, g.Max)
			return nil, 0
		}
		f.per.min, f.per.span = g.Min, uint64(g.Max-g.Min)+1
	case GenWeighted:
		total := 0.0
		for i, ch := range g.Choices {
			v, err := ParseValue(TypeLong, ch)
			if err != nil || v.Int < 0 || !(g.Weights[i] >= 0) {
				bad("per_parent choice %q must be a whole number >= 0 with a weight >= 0", ch)
				return nil, 0
			}
			f.per.choices = append(f.per.choices, v)
			total += g.Weights[i]
			f.per.cum = append(f.per.cum, total)
			if g.Weights[i] > 0 {
				f.per.last = i
			}
		}
		if !(total > 0) || len(g.Choices) == 0 || len(g.Choices) != len(g.Weights) {
			bad("per_parent weights must have a positive sum")
			return nil, 0
		}
	default:
		bad("per_parent must be uniform(min, max) or weighted({...}) over whole numbers, not %q", g.Kind)
		return nil, 0
	}
	f.prefix = make([]int64, 0, f.parentCount/famBlock+2)
	var total int64
	for p := int64(0); p < f.parentCount; p++ {
		if p%famBlock == 0 {
			f.prefix = append(f.prefix, total)
		}
		total += f.children(p)
		if total >= EntityBase {
			bad("more than %d children", EntityBase)
			return nil, 0
		}
	}
	f.prefix = append(f.prefix, total)
	return f, total
}

// layout assigns transaction index ranges: the initial phase (each kind in
// order, TxSize ids per tx), then each history's files.
func layout(c *compiled) {
	ts := c.txSize
	idx := int64(0)
	for k := range c.kinds {
		kc := &c.kinds[k]
		n := (kc.count + ts - 1) / ts
		kc.txStart = idx
		c.phases = append(c.phases, Phase{Name: PhaseInitial, Entity: kc.name, FirstID: 0, EndID: kc.count, Start: idx, End: idx + n})
		idx += n
	}
	c.initialEnd = idx
	for range c.phases {
		c.phaseHist = append(c.phaseHist, -1)
	}
	for hi := range c.hists {
		h := &c.hists[hi]
		h.fileTx = make([]int64, h.files+1)
		for f := 0; f < h.files; f++ {
			lo, end := fileRange(h.n, h.files, f)
			n := (end - lo + ts - 1) / ts
			h.fileTx[f] = idx
			c.phases = append(c.phases, Phase{Name: h.name, Entity: c.kinds[h.kind].name, Attr: c.attrs[h.attr].info.Ident, File: h.fileBase + f, FirstID: lo, EndID: end, Start: idx, End: idx + n})
			c.phaseHist = append(c.phaseHist, hi)
			idx += n
		}
		h.fileTx[h.files] = idx
	}
	c.txCount = idx
	c.laidOut = true
}

// fileRange is the id range [lo, end) of history file f of files over n ids.
func fileRange(n int64, files, f int) (lo, end int64) {
	return int64(f) * n / int64(files), int64(f+1) * n / int64(files)
}

func compileMarks(ds *Dataset, c *compiled, el *errList) {
	histIdx := map[string]int{} // a process's last step stands for it
	for i, h := range c.hists {
		histIdx[h.name] = i
	}
	laidOut := c.laidOut
	for _, m := range ds.Marks {
		bad := func(format string, args ...any) {
			el.add("mark %q: "+format, append([]any{m.Name}, args...)...)
		}
		if m.Name == "" {
			bad("empty name")
			continue
		}
		if _, dup := c.marks[m.Name]; dup {
			bad("declared twice")
			continue
		}
		var tx int64
		switch {
		case (m.After == "") == (m.BeforeLast == ""):
			bad("needs exactly one of after and before_last")
			continue
		case m.After == PhaseInitial:
			tx = TxBase + c.initialEnd - 1
		case m.After != "":
			hi, ok := histIdx[m.After]
			if !ok {
				bad("after %q is neither \"initial\" nor a history", m.After)
				continue
			}
			if laidOut {
				h := &c.hists[hi]
				tx = TxBase + h.fileTx[h.files] - 1
			}
		default:
			hi, ok := histIdx[m.BeforeLast]
			if !ok {
				bad("before_last %q is not a history", m.BeforeLast)
				continue
			}
			if laidOut {
				h := &c.hists[hi]
				tx = TxBase + h.fileTx[h.files-1] - 1
			}
		}
		c.marks[m.Name] = tx
	}
}
