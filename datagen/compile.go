package datagen

import (
	"errors"
	"fmt"
	"math"
	"strings"
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
	truth      []truthComp
	txSize     int64
	laidOut    bool
}

type kindComp struct {
	name    string
	count   int64
	base    int64 // entity id of id 0
	attrs   []int
	txStart int64 // tx index of the kind's first initial tx
}

type attrComp struct {
	info     AttrInfo
	kind     int
	pos      int // position in its entity's Attrs
	gen      genComp
	hists    []int // histories changing this attribute, in order
	ednIdent string
}

type histComp struct {
	name   string
	kind   int
	attr   int
	frac   float64
	files  int
	n      int64   // entity count
	fileTx []int64 // tx index where each file starts; fileTx[files] is the end
	sel    stream
	prior  []int // earlier histories on the same attribute
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
		}
		return err
	}
	for i := range c.attrs {
		a := &c.attrs[i]
		ds.Entities[a.kind].Attrs[a.pos].ID = a.info.ID
	}
	ds.c = c
	return nil
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
		if en.Count < 0 || en.Count >= EntityBase {
			el.add("entity %q: count %d out of range [0, %d)", en.Name, en.Count, EntityBase)
		}
		kc := kindComp{name: en.Name, count: max(en.Count, 0), base: int64(k+1) * EntityBase}
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
	compileTruth(ds, c, &el)
	if len(el.errs) > 0 {
		return nil, errors.Join(el.errs...)
	}
	return c, nil
}

func compileGen(ds *Dataset, c *compiled, a *attrComp, el *errList) {
	en := &c.kinds[a.kind]
	g := a.info.Gen
	t := a.info.Type
	bad := func(format string, args ...any) {
		el.add("entity %q attr %q: "+format, append([]any{en.name, a.info.Ident}, args...)...)
	}
	gc := genComp{kind: g.Kind, typ: t, class: a.info.Class, s: newStream(ds.Seed, en.name, a.info.Ident)}
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
			p, s, err := splitSeqFormat(g.Format)
			if err != nil {
				bad("seq format %q: %v", g.Format, err)
			}
			gc.prefix, gc.suffix = p, s
		}
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
	case GenRef:
		needType(t == TypeRef, "ref")
		target()
	case GenZipf:
		needType(t == TypeRef, "ref")
		if !(g.S > 0) || math.IsInf(g.S, 0) {
			bad("zipf exponent %g must be finite and > 0", g.S)
		} else if target() && gc.tcount > 0 {
			gc.zipf = newZipfSampler(gc.tcount, g.S)
		}
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
		bad("unknown generator %q", g.Kind)
	}
	a.gen = gc
}

// splitSeqFormat splits a seq format around its single %d ("%%" is a
// literal percent sign).
func splitSeqFormat(f string) (prefix, suffix string, err error) {
	var b strings.Builder
	found := false
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 >= len(f) {
			return "", "", errors.New("trailing %")
		}
		i++
		switch f[i] {
		case '%':
			b.WriteByte('%')
		case 'd':
			if found {
				return "", "", errors.New("more than one %d")
			}
			found = true
			prefix = b.String()
			b.Reset()
		default:
			return "", "", fmt.Errorf("unsupported verb %%%c (only one %%d)", f[i])
		}
	}
	if !found {
		return "", "", errors.New("needs exactly one %d")
	}
	return prefix, b.String(), nil
}

// canVary reports whether a generator can give a value different from
// any other, so a history change is a real change.
func canVary(g *genComp) bool {
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
	case GenRef, GenZipf:
		return g.tcount >= 2
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
		seen[h.Name] = true
		hc := histComp{name: h.Name, frac: h.Fraction, files: h.Files, sel: newStream(ds.Seed, "history", h.Name)}
		ok := true
		k, found := c.byKind[h.Entity]
		if !found {
			bad("entity %q is not an entity", h.Entity)
			ok = false
		}
		ai, found := c.byIdent[h.Attr]
		switch {
		case !found:
			bad("attr %q is not an attribute", h.Attr)
			ok = false
		case ok && c.attrs[ai].kind != k:
			bad("attr %q belongs to entity %q, not %q", h.Attr, c.attrs[ai].info.Entity, h.Entity)
			ok = false
		}
		if ok {
			a := &c.attrs[ai]
			switch {
			case a.info.Many:
				bad("attr %q has cardinality many; history changes cardinality-one attributes", h.Attr)
			case a.gen.kind == GenSeq || a.gen.kind == GenConst:
				bad("attr %q uses a %s generator, which cannot give a new value", h.Attr, a.gen.kind)
			case !canVary(&a.gen):
				bad("attr %q can only take one value, so it cannot change", h.Attr)
			case len(a.hists) >= maxVersions:
				bad("attr %q has more than %d histories", h.Attr, maxVersions-1)
			}
			hc.kind, hc.attr, hc.n = k, ai, c.kinds[k].count
			hc.prior = append([]int(nil), a.hists...)
			a.hists = append(a.hists, len(c.hists))
		}
		if !(h.Fraction > 0 && h.Fraction <= 1) {
			bad("fraction %g must be in (0, 1]", h.Fraction)
		}
		if h.Files < 1 || h.Files > maxFiles {
			bad("files %d must be in [1, %d]", h.Files, maxFiles)
		}
		c.hists = append(c.hists, hc)
	}
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
	for hi := range c.hists {
		h := &c.hists[hi]
		h.fileTx = make([]int64, h.files+1)
		for f := 0; f < h.files; f++ {
			lo, end := fileRange(h.n, h.files, f)
			n := (end - lo + ts - 1) / ts
			h.fileTx[f] = idx
			c.phases = append(c.phases, Phase{Name: h.name, Entity: c.kinds[h.kind].name, Attr: c.attrs[h.attr].info.Ident, File: f, FirstID: lo, EndID: end, Start: idx, End: idx + n})
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
	histIdx := map[string]int{}
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
